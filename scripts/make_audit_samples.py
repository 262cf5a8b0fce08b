#!/usr/bin/env python3
"""Writes samples/audit/: one idevicesyslog log per rule where that rule fires, and logs
where none does, each with its ideviceinfo sidecar. Deterministic: re-running rewrites the
files byte for byte. Apps are those of samples/apps/ plus apps/com.example.parking.plist.

    python3 scripts/make_audit_samples.py
"""
import hashlib
import os

import locsynth as L

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "audit")
APPS = {  # bundle id -> executable
    "com.example.runner": "Runner",
    "com.example.weather": "WeatherNow",
    "com.example.legacy": "Legacy",
    "com.example.tracker": "Tracker",
    "com.example.parking": "Parking",
}
MGR, DLG = "0x1505bd390", "0x19640c089"  # the app's CLLocationManager and its delegate
NOISE = [
    "mDNSResponder[123] <Notice>: [R4506] DNSServiceQueryRecord(init.itunes.apple.com, A) START PID[723]",
    "backboardd[42] <Notice>: Brightness changed to 0.8148 (lux 839)",
    'locationd[64] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"Fence", "id":"0x71ad5406", "property":"monitoring", "old":0, "new":1}',
    "CommCenter[132] <Notice>: #I Signal strength: bars=3 rssi=-88 rscp=-101 ecio=-7",
]


class Log:
    """One device-day: lines one or a few seconds apart, from 09:00:00 local time."""

    def __init__(self, device, bundle):
        self.device, self.bundle, self.exe = device, bundle, APPS[bundle]
        self.t = 9 * 3600
        self.pid = 700
        self.lines = []
        for n in NOISE[:2]:
            self.raw(n, step=37)

    def stamp(self, step):
        self.t += step
        return "Nov 20 %02d:%02d:%02d" % (self.t // 3600, self.t // 60 % 60, self.t % 60)

    def raw(self, rest, step=1):
        self.lines.append("%s %s %s" % (self.stamp(step), self.device, rest))
        return self

    def sys(self, msg, step=1):
        return self.raw("locationd[64] <Notice>: " + msg, step)

    def app(self, msg, step=1, level="Notice"):
        return self.raw("%s(CoreLocation)[%d] <%s>: %s" % (self.exe, self.pid, level, msg), step)

    def later(self, minutes):
        self.raw(NOISE[2], step=minutes * 30)
        self.raw(NOISE[3], step=minutes * 30)
        return self

    def launch(self, intent="foreground-interactive"):
        self.pid += 13
        self.raw("SpringBoard(FrontBoard)[53] <Notice>: " + L.bootstrapping(self.bundle, intent), step=5)
        return self.state("BackgroundRunning" if intent == "background" else "ForegroundRunning", step=0)

    def state(self, s, step=1):
        return self.sys(L.app_state(s, self.pid, self.bundle), step)

    def told(self, status, precision=None):
        return self.app(L.told(MGR, DLG, status, modern=True, limits=precision))

    def call(self, cmd, purpose=None):
        return self.app(L.activity(cmd, MGR, ', "purposeKey":"%s"' % purpose if purpose else ""))

    def prop(self, name, new):
        return self.app(L.transition(MGR, name, 1 - new, new))

    def deliver(self, acc=10, n=1):
        for i in range(n):
            location = '{"latitude":48.8584%02d, "longitude":2.2945%02d, "horizontalAccuracy":%s, "timestamp":816854718.32}' % (i, i, acc)
            self.app(L.delivered(MGR, DLG, location), step=2)
        return self

    def prompt(self, kind, options):
        return self.sys(L.prompt(self.bundle, kind, options))

    def answer(self, choice):
        return self.sys(L.prompt_response(self.bundle, choice), step=2)

    def status(self, status, reason="Prompt", provisional=0, temporary=0):
        return self.sys(L.authorization_changed(self.bundle, status, reason, provisional, temporary))

    def accuracy(self, acc, temporary, purpose=None, reason=None):
        return self.sys(L.accuracy_changed(self.bundle, acc, temporary, purpose, reason))

    def bar(self, visible):
        return self.sys(L.blue_bar(self.bundle, visible), step=0)

    def relaunch(self, service):
        self.pid += 13
        self.raw("SpringBoard(FrontBoard)[53] <Notice>: " + L.bootstrapping(self.bundle, "background"), step=5)
        self.sys(L.launch_client(self.bundle, service), step=0)
        return self.state("BackgroundRunning", step=0)

    def text(self):
        for n in NOISE[2:]:
            self.raw(n, step=41)
        return "\n".join(self.lines) + "\n"


def write(stem, os_version, log):
    udid = hashlib.sha1(stem.encode()).hexdigest()
    with open(os.path.join(HERE, stem + ".log"), "w") as f:
        f.write(log.text())
    with open(os.path.join(HERE, stem + ".ideviceinfo.txt"), "w") as f:
        f.write("DeviceName: %s\nProductType: iPhone14,5\nProductVersion: %s\nTimeZone: UTC\nUniqueDeviceID: %s\n"
                % (log.device, os_version, udid))


def fg_when_in_use(log, precision=None):
    return log.launch().call("requestWhenInUseAuthorization").told("AuthorizedWhenInUse", precision)


SAMPLES = []


def sample(stem, os_version, device, bundle):
    def register(build):
        SAMPLES.append((stem, os_version, device, bundle, build))
        return build
    return register


@sample("delivery-without-authorization", "16.7.2", "qa-iphone13-16", "com.example.weather")
def _(l):
    l.launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("Deny")
    l.status("Denied").told("Denied", 0).call("startUpdatingLocation").deliver(30, n=2)


@sample("background-delivery-without-capability", "15.8", "qa-iphone8-15", "com.example.weather")
def _(l):
    # A permanent While Using (the prompt's answer): past the grace in the background, nothing keeps it in use.
    l.launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    l.status("AuthorizedWhenInUse").told("AuthorizedWhenInUse", 0).call("startUpdatingLocation").deliver(10)
    l.state("BackgroundRunning").bar(1).later(1).deliver(10, n=2)


@sample("missing-blue-bar", "12.5.7", "qa-iphone6s-12", "com.example.runner")
def _(l):
    # The device's logs carry indicator lines (hidden at launch): the bar that never shows is known not shown.
    fg_when_in_use(l).bar(0).prop("allowsBackgroundLocationUpdates", 1).call("startUpdatingLocation").deliver(5)
    l.state("BackgroundRunning").deliver(5, n=3)


@sample("unexpected-blue-bar", "16.7.2", "qa-iphone13-16", "com.example.runner")
def _(l):
    # Always set in Settings: a permanent Always (a callback alone would not say whether it is provisional).
    l.launch().status("AuthorizedAlways", reason="Settings").told("AuthorizedAlways", 0).prop("allowsBackgroundLocationUpdates", 1)
    l.call("startUpdatingLocation").state("BackgroundRunning").bar(1).deliver(5, n=2)


@sample("allow-once-persisting", "15.8", "qa-iphone8-15", "com.example.weather")
def _(l):
    l.launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
    l.status("AuthorizedWhenInUse", temporary=1).told("AuthorizedWhenInUse", 0).call("startUpdatingLocation").deliver(30, n=2)
    l.state("Terminated", step=40).later(90)
    l.launch().told("AuthorizedWhenInUse", 0).call("startUpdatingLocation").deliver(30, n=3)


@sample("temporary-precise-persisting", "16.7.2", "qa-iphone13-16", "com.example.runner")
def _(l):
    fg_when_in_use(l, 1).call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", "Navigation")
    l.prompt("TemporaryFullAccuracy", "Allow,Deny").answer("Allow").accuracy("Full", 1, "Navigation").told("AuthorizedWhenInUse", 0)
    l.call("startUpdatingLocation").deliver(5, n=2).state("Terminated", step=30).later(45)
    l.launch().told("AuthorizedWhenInUse", 0).call("startUpdatingLocation").deliver(5, n=2)


@sample("precise-delivery-under-reduced-accuracy", "15.8", "qa-iphone8-15", "com.example.runner")
def _(l):
    fg_when_in_use(l, 1).call("startUpdatingLocation").deliver(3000).deliver(1414).deliver(12).deliver(3000)


@sample("grant-without-usage-description", "12.5.7", "qa-iphone6s-12", "com.example.legacy")
def _(l):
    l.launch().call("requestAlwaysAuthorization").prompt("Always", "WhenInUse,Always,Deny").answer("Always")
    l.status("AuthorizedAlways").told("AuthorizedAlways")


@sample("direct-always-grant", "14.8.1", "qa-iphone11-14", "com.example.runner")
def _(l):
    l.launch().told("NotDetermined", 0).call("requestAlwaysAuthorization").prompt("Always", "AllowOnce,WhenInUse,Deny")
    l.answer("WhenInUse").status("AuthorizedAlways").told("AuthorizedAlways", 0)


@sample("repeated-always-prompt", "13.7", "qa-iphone11-13", "com.example.runner")
def _(l):
    l.launch().call("requestAlwaysAuthorization").prompt("Always", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    l.status("AuthorizedAlways", provisional=1).told("AuthorizedAlways").prop("allowsBackgroundLocationUpdates", 1)
    l.call("startUpdatingLocation").state("BackgroundRunning").bar(1).deliver(5)
    l.prompt("AlwaysUpgrade", "Always,KeepWhenInUse").answer("KeepWhenInUse").status("AuthorizedWhenInUse").told("AuthorizedWhenInUse")
    l.state("Terminated", step=20).later(120)
    l.launch().prop("allowsBackgroundLocationUpdates", 1).call("startUpdatingLocation").state("BackgroundRunning").bar(1).deliver(5)
    l.prompt("AlwaysUpgrade", "Always,KeepWhenInUse")


@sample("temporary-precise-without-authorization", "17.5.1", "qa-iphone14-17", "com.example.runner")
def _(l):
    fg_when_in_use(l, 1).call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", "Marketing")
    l.prompt("TemporaryFullAccuracy", "Allow,Deny").answer("Allow").accuracy("Full", 1, "Marketing")


@sample("relaunch-without-always", "16.7.2", "qa-iphone13-16", "com.example.runner")
def _(l):
    fg_when_in_use(l, 0).call("startMonitoringVisits").state("Terminated", step=20).later(200)
    l.relaunch("Visits").bar(1).deliver(65)


@sample("delivery-after-termination", "17.5.1", "qa-iphone14-17", "com.example.runner")
def _(l):
    fg_when_in_use(l, 0).call("startUpdatingLocation").deliver(5).state("Terminated", step=3).deliver(5)


@sample("delivery-while-paused", "11.4.1", "qa-iphone7-11", "com.example.runner")
def _(l):
    fg_when_in_use(l).call("startUpdatingLocation").deliver(10)
    l.app(L.delegate(MGR, None, "locationManagerDidPauseLocationUpdates:"), step=60)
    l.deliver(10, n=2)


@sample("status-invalid-for-os", "12.5.7", "qa-iphone6s-12", "com.example.weather")
def _(l):
    l.launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
    l.status("AuthorizedWhenInUse", temporary=1).told("AuthorizedWhenInUse")


@sample("missing-usage-description", "15.8", "qa-iphone8-15", "com.example.weather")
def _(l):
    fg_when_in_use(l, 0).call("requestAlwaysAuthorization")
    l.app("This app has attempted to access privacy-sensitive data without a usage description. The app's Info.plist must contain both \\M-b\\M^@\\M^\\NSLocationAlwaysAndWhenInUseUsageDescription\\M-b\\M^@\\M^] and \\M-b\\M^@\\M^\\NSLocationWhenInUseUsageDescription\\M-b\\M^@\\M^] keys with string values explaining to the user how the app uses this data", level="Fault")


@sample("background-flag-without-capability", "11.4.1", "qa-iphone7-11", "com.example.tracker")
def _(l):
    fg_when_in_use(l).prop("allowsBackgroundLocationUpdates", 1)
    l.app("*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)'", level="Error")
    l.state("Terminated")


@sample("background-updates-started-in-background", "17.5.1", "qa-iphone13-17", "com.example.runner")
def _(l):
    # While Using, a minute in the background, then updates with the background flag YES: they keep nothing in use.
    l.launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    l.status("AuthorizedWhenInUse").told("AuthorizedWhenInUse", 0).state("BackgroundRunning").later(1)
    l.prop("allowsBackgroundLocationUpdates", 1).call("startUpdatingLocation").deliver(10)


@sample("deprecated-usage-key", "11.4.1", "qa-iphone7-11", "com.example.legacy")
def _(l):
    fg_when_in_use(l).call("startUpdatingLocation").deliver(10, n=2)


@sample("invalid-default-accuracy-reduced", "17.5.1", "qa-iphone14-17", "com.example.parking")
def _(l):
    fg_when_in_use(l, 0).call("startUpdatingLocation").deliver(8, n=2)


@sample("clean-provisional-always-upgrade", "13.7", "qa-iphone11-13", "com.example.runner")
def _(l):
    l.launch().call("requestAlwaysAuthorization").prompt("Always", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    l.status("AuthorizedAlways", provisional=1).told("AuthorizedAlways").prop("allowsBackgroundLocationUpdates", 1)
    l.call("startUpdatingLocation").deliver(5).state("BackgroundRunning").bar(1).deliver(5, n=2)
    l.prompt("AlwaysUpgrade", "Always,KeepWhenInUse").answer("Always").status("AuthorizedAlways").told("AuthorizedAlways").bar(0)
    l.deliver(5, n=2).state("ForegroundRunning").call("stopUpdatingLocation").call("startMonitoringSignificantLocationChanges")
    l.state("Terminated", step=30).later(300)
    # Relaunched under Always for a significant change: the device's logs carry relaunch lines.
    l.relaunch("SignificantLocationChange").bar(0).deliver(500)


@sample("clean-reduced-accuracy-and-renewed-grant", "17.5.1", "qa-iphone14-17", "com.example.runner")
def _(l):
    # Every fact the rules read is in the log: the grant (a prompt answer), the bar (hidden at launch).
    l.launch().bar(0).call("requestWhenInUseAuthorization").prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    l.status("AuthorizedWhenInUse").told("AuthorizedWhenInUse", 1).call("startUpdatingLocation").deliver(3000, n=2)
    l.call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", "Delivery").prompt("TemporaryFullAccuracy", "Allow,Deny")
    l.answer("Allow").accuracy("Full", 1, "Delivery").deliver(5, n=2).state("Terminated", step=30).later(60)
    l.launch().bar(0).accuracy("Reduced", 0, reason="Expired").told("AuthorizedWhenInUse", 1).call("startUpdatingLocation").deliver(2500)
    # Always in Settings, then a relaunch for a significant change: the device's logs carry relaunch lines.
    l.call("stopUpdatingLocation").status("AuthorizedAlways", reason="Settings").told("AuthorizedAlways", 1)
    l.call("startMonitoringSignificantLocationChanges").state("Terminated", step=30).later(300)
    l.relaunch("SignificantLocationChange").bar(0).deliver(2500)


@sample("clean-always-relaunch-ios10", "10.3.3", "qa-iphone7-10", "com.example.runner")
def _(l):
    l.launch().bar(0).call("requestAlwaysAuthorization").prompt("Always", "Always,Deny").answer("Always").status("AuthorizedAlways")
    l.told("AuthorizedAlways").prop("allowsBackgroundLocationUpdates", 1).call("startMonitoringSignificantLocationChanges")
    l.call("startUpdatingLocation").state("BackgroundRunning").deliver(10, n=2).state("Terminated", step=30).later(300)
    l.relaunch("SignificantLocationChange").bar(0).deliver(500)


if __name__ == "__main__":
    for stem, os_version, device, bundle, build in SAMPLES:
        log = Log(device, bundle)
        build(log)
        write(stem, os_version, log)
    print("wrote %d logs to %s" % (len(SAMPLES), os.path.normpath(HERE)))
