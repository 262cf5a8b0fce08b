#!/usr/bin/env python3
"""Generate a realistic QA fleet of gzipped idevicesyslog exports, of any size.

    python3 scripts/generate_fleet.py --out DIR --size 1G [--devices 4] [--seed 1]
        [--date 2026-11-20] [--location-share 0.08] [--single]

Writes, for each device, DIR/<device>-<date>.log.gz (idevicesyslog text,
compressed by a `gzip -6 -n` subprocess) and its DIR/<device>-<date>.ideviceinfo.txt
sidecar, plus DIR/apps/<bundle>.plist for the apps that appear. The
uncompressed total is about --size (K/M/G suffixes, powers of 1024), split
evenly over the devices. --single (or --devices 1) writes one file.

Lines: mostly noise from ~30 system processes (varied messages, pids and
numbers, a few vis-escaped bytes and multi-line records), and about
--location-share of lines that are location events in the shapes of
docs/log-formats.md, organised into app sessions (launch, state
changes, requests and prompts, deliveries about every second, background
with or without blue bar, termination) for ~5 apps per device, iOS 12..18.
About 4% of sessions carry an anomaly (missing blue bar, precise fix under
reduced accuracy, delivery while paused, relaunch without Always).

Deterministic for a given (--seed, --size, --devices, --date, --location-share).
Prints what it wrote to stderr.
"""

from __future__ import annotations

import argparse
import os
import plistlib
import random
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import locsynth as L
from locsynth import CF_EPOCH, MON, vis

FLUSH_BYTES = 4 << 20
POOL_SIZE = 8192
REFRESH_EVERY = 65536  # lines; then 1/8 of the noise pool is re-rendered

# --------------------------------------------------------------------------
# devices and apps
# --------------------------------------------------------------------------

# (iOS, build, ProductType, HardwareModel, ChipID, new-style UDID)
MODELS = [
    ("12.5.7", "16H81", "iPhone7,2", "N61AP", 0x7000, False),
    ("13.7", "17H35", "iPhone12,1", "N104AP", 0x8030, True),
    ("14.8", "18H17", "iPhone13,2", "D53gAP", 0x8101, True),
    ("15.8", "19H370", "iPhone9,3", "D101AP", 0x8010, False),
    ("16.7.2", "20H115", "iPhone10,4", "D201AP", 0x8015, False),
    ("17.5.1", "21F90", "iPhone15,2", "D73AP", 0x8120, True),
    ("18.1", "22B83", "iPhone16,1", "D83AP", 0x8130, True),
    ("26.1", "23B85", "iPhone17,1", "D93AP", 0x8140, True),
]

# bundle, executable, background location capability, request (WhenInUse/Always), extra plist keys
APPS = [
    ("com.example.runner", "Runner", True, "Always", {
        "NSLocationTemporaryUsageDescriptionDictionary": {"Delivery": "Find you.", "Navigation": "Directions."},
        "NSLocationDefaultAccuracyReduced": True}),
    ("com.example.weather", "WeatherNow", False, "WhenInUse", {}),
    ("com.example.legacy", "Legacy", False, "WhenInUse", {"NSLocationDefaultAccuracyReduced": "YES"}),
    ("com.example.tracker", "Tracker", False, "WhenInUse", {}),
    ("com.example.courier", "CourierGo", True, "Always", {}),
    ("com.example.fitness", "FitPulse", True, "WhenInUse", {}),
    ("com.example.citymaps", "CityMaps", True, "WhenInUse", {
        "NSLocationTemporaryUsageDescriptionDictionary": {"Navigation": "Turn-by-turn directions."}}),
]


def app_plist(bundle, exe, bg, request, extra) -> dict:
    name = exe
    p = {
        "CFBundleDevelopmentRegion": "en", "CFBundleDisplayName": name, "CFBundleExecutable": exe,
        "CFBundleIdentifier": bundle, "CFBundleInfoDictionaryVersion": "6.0", "CFBundleName": name,
        "CFBundlePackageType": "APPL", "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1",
        "LSRequiresIPhoneOS": True, "MinimumOSVersion": "12.0", "UIDeviceFamily": [1],
        "NSLocationWhenInUseUsageDescription": f"{name} uses your location while you use it.",
    }
    if request == "Always":
        p["NSLocationAlwaysAndWhenInUseUsageDescription"] = f"{name} uses your location in the background."
        p["NSLocationAlwaysUsageDescription"] = f"{name} uses your location in the background."
    if bg:
        p["UIBackgroundModes"] = ["location"]
    p.update(extra)
    return p


def ideviceinfo(name, model, tz, captured: datetime) -> str:
    ios, build, product, hw, chip, new = model
    off = captured.utcoffset().total_seconds()
    kv = {
        "ActivationState": "Activated", "ActivationStateAcknowledged": "true", "BasebandStatus": "BBInfoAvailable",
        "BluetoothAddress": L.mac(name, "bt"), "BoardId": "2", "BrickState": "false", "BuildVersion": build,
        "CPUArchitecture": "arm64e" if chip >= 0x8020 else "arm64", "ChipID": str(chip), "DeviceClass": "iPhone",
        "DeviceColor": "#3b3b3c", "DeviceName": name, "HardwareModel": hw, "HasSiDP": "true",
        "HumanReadableProductVersionString": ios, "PartitionType": "GUID_partition_scheme",
        "PasswordProtected": "true", "ProductName": "iPhone OS", "ProductType": product, "ProductVersion": ios,
        "ProtocolVersion": "2", "SerialNumber": L.ident(name, "serial", 12), "TelephonyCapability": "true",
        "TimeIntervalSince1970": f"{captured.timestamp():.6f}", "TimeZone": str(captured.tzinfo),
        "TimeZoneOffsetFromUTC": f"{off:.6f}", "UniqueChipID": str(L.ecid(name)), "UniqueDeviceID": L.udid(name, chip, new),
        "Uses24HourClock": "true", "WiFiAddress": L.mac(name, "wifi"),
    }
    return "".join(f"{k}: {v}\n" for k, v in sorted(kv.items()))


# --------------------------------------------------------------------------
# noise
# --------------------------------------------------------------------------


def hx(r, bits=36):
    return "0x" + format(r.getrandbits(bits), "x")


def uuid(r):
    h = "%032X" % r.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


SYS_APPS = ["MobileSafari", "MobileMail", "MobileSMS", "Music", "Photos", "Maps", "Podcasts", "Stocks", "Camera"]
BUNDLES = ["com.apple.mobilesafari", "com.apple.mobilemail", "com.apple.MobileSMS", "com.apple.Music",
           "com.apple.mobileslideshow", "com.apple.Maps", "com.apple.podcasts", "com.apple.stocks"]
DOMAINS = ["api.weather.example.com", "tiles.example.com", "gs-loc.apple.com", "init.itunes.apple.com",
           "gateway.icloud.com", "mesu.apple.com", "cdn.example.net", "collect.tracker.example.net",
           "api.runner.example.com", "gspe35-ssl.ls.apple.com", "push.apple.com", "time.apple.com"]
NETWORKS = ["QA-LAB", "QA-LAB-5G", "Caf\u00e9 Lumi\u00e8re", "Guest\\Office", "FreeWifi_secure", "B\u00fcro-2.4"]

# (process, library or None, weight, minimum iOS, message maker)
NOISE = [
    ("kernel", None, 6, 12, lambda r: f"AppleKeyStore: operation failed (pid: {r.randint(80, 2000)} sel: {r.choice([7, 8, 29])} ret: e00002c2 '-536870206')"),
    ("kernel", None, 5, 12, lambda r: f"Sandbox: {r.choice(SYS_APPS)}({r.randint(100, 3000)}) deny(1) {r.choice(['file-read-metadata', 'mach-lookup', 'file-read-data'])} {r.choice(['/private/var/mobile/Library/Preferences', 'com.apple.coreservices.quarantine-resolver', '/private/var/containers/Shared/SystemGroup'])}"),
    ("kernel", None, 6, 12, lambda r: f"wlan0: RSSI {-r.randint(40, 85)} dBm, noise {-r.randint(86, 96)} dBm, rate {r.choice([72, 144, 286, 433, 866, 1201])} Mbps"),
    ("kernel", None, 2, 12, lambda r: f"memorystatus: killing_idle_process pid {r.randint(300, 4000)} [{r.choice(SYS_APPS)}] (sustained-memory-pressure {r.randint(1, 5)}) - memorystatus_available_pages: {r.randint(5000, 40000)}"),
    ("kernel", None, 3, 12, lambda r: f"AppleBCMWLANCore::setPowerSaveMode(): PM {r.randint(0, 2)} -> {r.randint(0, 2)}, beacon interval {r.choice([100, 102])}"),
    ("kernel", None, 2, 12, lambda r: f"AppleARMPMUCharger: limiting USB input current to {r.choice([500, 1000, 1500, 2100])} mA, VBUS {r.uniform(4.8, 5.2):.3f} V"),
    ("kernel", None, 2, 13, lambda r: f"ANE0: ANE_ProgramSendRequest: program {r.randint(1, 400)} queue {r.randint(0, 7)} latency {r.randint(80, 9000)} us"),
    ("SpringBoard", "FrontBoard", 4, 12, lambda r: f"[FBSystemService] Received request to open \"{r.choice(BUNDLES)}\" from SpringBoard:{r.randint(40, 70)}"),
    ("SpringBoard", None, 4, 12, lambda r: f"Setting backlight level to {r.uniform(0.05, 1):.3f} (source: {r.choice(['ALS', 'user', 'AutoBrightness'])})"),
    ("SpringBoard", None, 4, 12, lambda r: f"Status bar data changed: battery {r.randint(5, 100)}%, signal {r.randint(0, 4)} bars, wifi {r.randint(0, 3)}"),
    ("SpringBoard", None, 2, 12, lambda r: f"Notification request {uuid(r)} for {r.choice(BUNDLES)}: category {r.choice(['MESSAGE', 'EVENT', 'NEWS'])}, {r.randint(0, 4)} actions"),
    ("SpringBoard", "UIKitCore", 1, 13, lambda r: f"Snapshot request {hx(r, 32)} complete with error: <NSError: {hx(r)}; domain: FBSceneSnapshotErrorDomain; code: {r.randint(1, 5)}>\n    reason: scene {r.choice(BUNDLES)} not active\n    underlying: none"),
    ("backboardd", None, 6, 12, lambda r: f"HID: touch down (contextID: {hx(r, 32)}), location {{{r.randint(0, 430)}, {r.randint(0, 930)}}}, force {r.uniform(0, 1):.3f}"),
    ("backboardd", None, 3, 12, lambda r: f"Brightness changed to {r.uniform(0.05, 1):.4f} (lux {r.randint(0, 20000)}, nits {r.randint(2, 1000)})"),
    ("backboardd", None, 2, 12, lambda r: f"BKSHIDEventDeliveryManager: dispatched {r.randint(1, 80)} events to pid {r.randint(40, 3000)} in {r.uniform(0.1, 9):.2f} ms"),
    ("wifid", None, 5, 12, lambda r: f"WiFi:[{r.uniform(8.1e8, 8.2e8):.3f}]: Processing scan results: {r.randint(1, 42)} networks, strongest RSSI {-r.randint(35, 80)}"),
    ("wifid", None, 4, 12, lambda r: f"__WiFiLQAMgrLogStats({r.choice(NETWORKS)}:{r.choice(['Stationary', 'Walking', 'Driving'])}): Rssi: {-r.randint(40, 85)} Snr: {r.randint(5, 45)} TxFrames: {r.randint(0, 9000)} TxFail: {r.randint(0, 40)}"),
    ("wifid", None, 2, 12, lambda r: f"WiFi:[{r.uniform(8.1e8, 8.2e8):.3f}]: Client {r.choice(['itunesstored', 'nsurlsessiond', 'cloudd', 'apsd'])} set type to {r.choice(['background application', 'foreground application', 'daemon'])}"),
    ("mDNSResponder", None, 4, 12, lambda r: f"[R{r.randint(1000, 99999)}] DNSServiceQueryRecord({r.choice(DOMAINS)}, {r.choice(['A', 'AAAA', 'HTTPS'])}) START PID[{r.randint(40, 4000)}]({r.choice(SYS_APPS + ['nsurlsessiond', 'apsd'])})"),
    ("mDNSResponder", None, 3, 12, lambda r: f"[R{r.randint(1000, 99999)}->Q{r.randint(1000, 99999)}] Result for {r.choice(DOMAINS)}: {r.randint(1, 8)} addresses, {r.randint(2, 400)} ms, ifindex {r.choice([0, 11, 13])}"),
    ("mDNSResponder", None, 1, 12, lambda r: f"mDNS_Register_internal: Registering QA-Lab\\032AirPlay\\032{r.randint(1, 9)}._airplay._tcp.local. (SRV) port {r.choice([7000, 7100])}"),
    ("CommCenter", None, 4, 12, lambda r: f"#I Signal strength: bars={r.randint(0, 4)} rssi={-r.randint(60, 120)} rsrp={-r.randint(80, 130)} sinr={r.randint(-5, 30)}"),
    ("CommCenter", None, 3, 12, lambda r: f"#I CSIPacketAddress: data context {r.randint(0, 3)} active, bytes in {r.randint(0, 900000)} out {r.randint(0, 90000)}"),
    ("CommCenter", None, 1, 12, lambda r: f"#I Radio technology changed: {r.choice(['LTE', '5G NSA', '5G SA', 'UMTS'])} -> {r.choice(['LTE', '5G NSA', 'UMTS'])} (band {r.choice([3, 7, 20, 28, 78])})"),
    ("runningboardd", None, 4, 13, lambda r: f"[app<{r.choice(BUNDLES)}>:{r.randint(300, 4000)}] Set jetsam priority to {r.choice([0, 3, 10, 100])} [0] flag[{r.randint(0, 1)}]"),
    ("runningboardd", None, 3, 13, lambda r: f"Acquiring assertion targeting [app<{r.choice(BUNDLES)}>:{r.randint(300, 4000)}] from originator [daemon<com.apple.{r.choice(['SpringBoard', 'assertiond', 'dasd'])}>:{r.randint(30, 300)}] with description <RBSAssertionDescriptor| \"{r.choice(['FBWorkspace', 'Shared Background Assertion', 'com.apple.nsurlsessiond.handlesession'])}\" ID:{r.randint(30, 300)}-{r.randint(30, 300)}-{r.randint(1000, 99999)}>"),
    ("dasd", None, 3, 12, lambda r: f"com.apple.{r.choice(['photoanalysisd', 'mediaanalysisd', 'cloudd', 'spotlight'])}.{r.choice(['background', 'maintenance'])}:{r.getrandbits(16):04X}:[{{name: {r.choice(['ThermalPolicy', 'BatteryLevelPolicy', 'CPUUsagePolicy'])}, policyWeight: {r.uniform(0.5, 50):.3f}, response: {{Decision: {r.choice(['Can Proceed', 'Must Not Proceed'])}, Score: {r.uniform(0, 1):.2f}}}}}] ]"),
    ("symptomsd", None, 3, 12, lambda r: f"Data Usage for {r.choice(SYS_APPS + ['nsurlsessiond', 'apsd', 'cloudd'])} on flow {r.randint(1000, 999999)} - WiFi in: {r.randint(0, 900000)}, WiFi out: {r.randint(0, 90000)}, WWAN in: {r.randint(0, 90000)}, WWAN out: {r.randint(0, 9000)}"),
    ("apsd", None, 2, 12, lambda r: f"<APSCourier: {hx(r)}> Sending keep-alive, interval {r.choice([600, 900, 1800, 3600])}s on interface {r.choice(['pdp_ip0', 'en0'])}"),
    ("apsd", None, 2, 12, lambda r: f"Received message for enabled topic '{r.choice(BUNDLES)}' onInterface: {r.choice(['NonCellular', 'Cellular'])} with payload size {r.randint(60, 4000)}"),
    ("bluetoothd", None, 3, 12, lambda r: f"Device found: {r.getrandbits(48):012X} RSSI {-r.randint(40, 100)} type {r.choice(['Watch', 'Headphones', 'Unknown', 'AirTag'])} manufacturer 0x{r.getrandbits(16):04x}"),
    ("powerd", None, 2, 12, lambda r: f"Battery capacity change: {r.randint(3, 100)}%, temperature {r.uniform(20, 40):.1f}C, charging {r.choice(['no', 'no', 'yes'])}, cycle count {r.randint(10, 900)}"),
    ("nsurlsessiond", "CFNetwork", 3, 12, lambda r: f"Task <{uuid(r)}>.<{r.randint(1, 40)}> finished with status {r.choice([200, 200, 200, 204, 304, 404, 500])} bytes {r.randint(0, 9000000)} in {r.uniform(0.01, 9):.3f}s"),
    ("mediaserverd", None, 1, 12, lambda r: f"FigAudioSession: category {r.choice(['AVAudioSessionCategoryAmbient', 'AVAudioSessionCategoryPlayback'])}, route {r.choice(['Speaker', 'Headphones', 'BluetoothA2DPOutput'])}, volume {r.uniform(0, 1):.3f}"),
    ("thermalmonitord", None, 1, 12, lambda r: f"Thermal level {r.choice([0, 0, 0, 10, 20])}, skin temperature {r.uniform(25, 40):.2f}, pressure {r.choice(['nominal', 'light', 'moderate'])}"),
    ("searchd", None, 1, 12, lambda r: f"Indexed {r.randint(1, 400)} items for bundle {r.choice(BUNDLES)} in {r.randint(1, 900)} ms"),
    ("UserEventAgent", None, 2, 12, lambda r: f"com.apple.cts.{r.choice(['batteryLevel', 'wifiPower', 'wake', 'sleep', 'timer'])} notification fired, {r.randint(0, 12)} jobs"),
    ("identityservicesd", None, 2, 12, lambda r: f"<IDSDaemon> Received message {uuid(r)} for service com.apple.madrid from {r.choice(['device', 'server'])}, {r.randint(100, 9000)} bytes"),
    ("cloudd", None, 2, 12, lambda r: f"[{hx(r, 24)}] Operation {r.choice(['CKFetchRecordZoneChangesOperation', 'CKModifyRecordsOperation'])} finished with {r.randint(0, 500)} records in {r.uniform(0.02, 8):.2f}s"),
    ("healthd", None, 1, 12, lambda r: f"HDDataCollectionManager: received {r.randint(1, 120)} samples from {r.choice(['StepCount', 'HeartRate', 'DistanceWalkingRunning'])}"),
    ("locationd", None, 3, 12, lambda r: f"{{\"msg\":\"WifiTile\", \"event\":\"activity\", \"tiles\":{r.randint(1, 9)}, \"cached\":{r.randint(0, 1)}, \"age\":{r.uniform(1, 3600):.1f}}}"),
    ("locationd", None, 2, 12, lambda r: f"{{\"msg\":\"state transition\", \"event\":\"state_transition\", \"state\":\"Fence\", \"id\":\"{hx(r)}\", \"property\":\"monitoring\", \"old\":{r.randint(0, 1)}, \"new\":{r.randint(0, 1)}}}"),
    ("locationd", None, 2, 12, lambda r: f"{{\"msg\":\"Incoming message\", \"event\":\"activity\", \"name\":\"{r.choice(['kCLConnectionMessageMotionActivityQuery', 'kCLConnectionMessagePing', 'kCLConnectionMessageTimeZone'])}\", \"this\":\"{hx(r)}\", \"registrationReceived\":{r.randint(0, 1)}}}"),
    ("locationd", None, 1, 12, lambda r: f"{{\"msg\":\"#CLIUA Marking change\", \"clientKey\":\"i{r.choice(BUNDLES)}:\", \"reason\":\"Process state from RunningBoard\", \"AssertionLevel\":\"kCLClientInUseLevelDirectUserEngagement\", \"coming\":{r.randint(0, 1)}}}"),
    ("MobileSafari", "WebKit", 2, 12, lambda r: f"{hx(r)} - WebProcessProxy::didFinishLaunching: pid {r.randint(300, 4000)}, {r.randint(1, 12)} pages"),
    ("MobileMail", None, 1, 12, lambda r: f"#Fetch Fetched {r.randint(0, 80)} messages for account {uuid(r)[:8]} mailbox {r.choice(['INBOX', 'Sent', 'Archive'])} in {r.uniform(0.1, 9):.2f}s"),
]


class Noise:
    """A pool of rendered noise records (`proc(lib)[pid] <Level>: msg`), refreshed as lines are used."""

    def __init__(self, r: random.Random, ios: int):
        self.r = r
        items = [x for x in NOISE if x[3] <= ios]
        self.items = items
        self.weights = []
        acc = 0
        for x in items:
            acc += x[2]
            self.weights.append(acc)
        self.pids = {}
        pid = 20
        for proc in sorted({x[0] for x in items}):
            pid += r.randint(3, 40)
            self.pids[proc] = 0 if proc == "kernel" else pid
        self.pool = [self.render() for _ in range(POOL_SIZE)]
        self.cursor = 0

    def render(self) -> str:
        r = self.r
        proc, lib, _w, _m, fn = r.choices(self.items, cum_weights=self.weights)[0]
        x = r.random()
        level = "Notice" if x < 0.9 else ("Error" if x < 0.98 else "Debug")
        name = f"{proc}({lib})" if lib else proc
        return f"{name}[{self.pids[proc]}] <{level}>: {vis(fn(r))}"

    def refresh(self):
        n = POOL_SIZE // 8
        c = self.cursor
        for i in range(c, c + n):
            self.pool[i % POOL_SIZE] = self.render()
        self.cursor = (c + n) % POOL_SIZE


# --------------------------------------------------------------------------
# location sessions
# --------------------------------------------------------------------------


class Locations:
    """Location lines for one device, as interleaved app sessions; each next() gives one record body."""

    def __init__(self, r: random.Random, ios: int, apps: list, pids: dict, base=(48.858370, 2.294481)):
        self.r, self.ios, self.apps = r, ios, apps
        self.sb = f"SpringBoard(FrontBoard)[{pids.get('SpringBoard', 57)}] <Notice>: "
        self.ld = f"locationd[{pids.get('locationd', 78)}] <Notice>: "
        self.now_cf = 0.0
        self.base = base
        self.status = {a[0]: "NotDetermined" for a in apps}
        self.provisional = {a[0]: False for a in apps}
        self.accuracy = {a[0]: "Full" for a in apps}
        self.active: list = []
        self.busy: set = set()  # bundles with a running session: one process per app at a time
        self.turn = 0
        self.next_pid = r.randint(400, 900)
        self.concurrency = 2
        self.count = 0

    def take(self, k: int) -> list[str]:
        out = []
        while len(out) < k:
            if len(self.active) < self.concurrency:
                self.active.append(self.session())
            self.turn = (self.turn + 1) % len(self.active)
            g = self.active[self.turn]
            try:
                out.append(next(g))
            except StopIteration:
                self.active.pop(self.turn)
                self.turn = 0
                if self.r.random() < 0.5:
                    self.concurrency = self.r.choice([1, 2, 2, 3])
        self.count += k
        return out

    def session(self):
        app = self.r.choice([a for a in self.apps if a[0] not in self.busy])
        self.busy.add(app[0])
        try:
            yield from self._session(app)
        finally:
            self.busy.discard(app[0])

    def _session(self, app):
        r = self.r
        bundle, exe, bg, request, extra = app
        self.next_pid += r.randint(15, 400)
        pid = self.next_pid
        ios = self.ios
        mgr, dlg = "0x1" + format(r.getrandbits(32), "08x"), "0x1" + format(r.getrandbits(32), "08x")
        own = f"{exe}(CoreLocation)[{pid}] <Notice>: "
        ck = f"i{bundle}:"
        anomaly = r.random() < 0.04 and r.choice(["bluebar", "precise", "paused", "relaunch"]) or None
        reduced_default = extra.get("NSLocationDefaultAccuracyReduced") is True
        lat = self.base[0] + r.uniform(-0.01, 0.01)
        lon = self.base[1] + r.uniform(-0.01, 0.01)
        alt = r.uniform(20, 60)

        def rbs(n):
            return self.ld + L.app_state(n, pid, bundle)

        def api(cmd, extra_kv=""):
            return own + L.activity(cmd, mgr, extra_kv)

        def trans(prop, old, new):
            return own + L.transition(mgr, prop, old, new)

        def authcb():
            st = self.status[bundle]
            if ios >= 14:
                lp = 1 if self.accuracy[bundle] == "Reduced" else 0
                return own + L.told(mgr, dlg, st, modern=True, limits=lp, widget=0)
            return own + L.told(mgr, dlg, st, modern=False)

        # iOS 17+: some sessions use CLLocationUpdate.liveUpdates (and, in the background, a
        # CLBackgroundActivitySession created in the foreground); iOS 18+: some declare what they
        # need with a CLServiceSession (rules model v2; log-formats.md "Version 2 families").
        live = ios >= 17 and r.random() < 0.5
        service_session = ios >= 18 and r.random() < 0.3

        def framework(cls, cmd, extra_kv=""):
            return own + '{"msg":"%s", "event":"activity", "_cmd":"%s"%s, "self":"%s"}' % (cls, cmd, extra_kv, mgr)

        def deliver(precise_override=False, private=False):
            nonlocal lat, lon, alt
            lat += r.uniform(0.00001, 0.00006)
            lon -= r.uniform(0.00001, 0.00006)
            alt += r.uniform(-0.5, 0.5)
            if private:
                loc = "<private>"
            else:
                if self.accuracy[bundle] == "Reduced" and not precise_override:
                    ha = r.choice((1414, 2000, 3000))
                else:
                    ha = r.choice((5, 5, 10, 10, 16, 30, 65))
                loc = ('{"latitude":%.6f, "longitude":%.6f, "altitude":%.1f, "horizontalAccuracy":%d, '
                       '"verticalAccuracy":%.1f, "speed":%.2f, "course":%.1f, "timestamp":%.2f, "floor":0}'
                       % (lat, lon, alt, ha, r.uniform(3, 12), r.uniform(0, 4), r.uniform(0, 359.9),
                          self.now_cf - r.uniform(0.05, 0.4)))
            if live:
                return own + '{"msg":"#CLLocationUpdate yielding update", "self":"%s", "location":%s, "isStationary":0}' % (mgr, loc)
            return own + L.delivered(mgr, dlg, loc)

        if anomaly == "relaunch" and bg:
            # relaunch by significant-change while not Always (or fine when Always)
            yield self.sb + L.bootstrapping(bundle, "background")
            yield self.ld + L.launch_client(bundle, "SignificantLocationChange")
            yield rbs("BackgroundRunning")
            yield api("onClientEventRegistration:", f', "clientKey":"{ck}"')
            yield authcb()
            for _ in range(r.randint(1, 3)):
                yield deliver()
            yield rbs("BackgroundTaskSuspended")
            yield rbs("Terminated")
            return

        yield self.sb + L.bootstrapping(bundle, "foreground-interactive")
        yield rbs("ForegroundRunning")
        yield self.ld + (f'{{"msg":"#CLIUA AppMonitor notification", "notification":"ForegroundRunning", "pid":{pid}, '
                         f'"bundleId":"{bundle}", "ClientKey":"{ck}"}}')
        yield api("onClientEventRegistration:", f', "clientKey":"{ck}"')
        allow_once = 0
        if service_session:
            yield framework("CLServiceSession", "sessionRequiringAuthorization:", f', "authorization":"{request}"')
        if self.status[bundle] == "NotDetermined":
            kind = request
            yield api(f"request{request}Authorization")
            opts = ("AllowOnce,WhenInUse,Deny" if ios >= 13 else
                    ("WhenInUse,Always,Deny" if kind == "Always" else "WhenInUse,Deny"))
            yield self.ld + L.prompt(bundle, kind, opts)
            choice = r.choice(["WhenInUse", "WhenInUse", "WhenInUse", "Deny"] + (["AllowOnce"] if ios >= 13 else []))
            yield self.ld + L.prompt_response(bundle, choice)
            temporary, provisional = 0, 0
            if choice == "Deny":
                st = "Denied"
            elif kind == "Always" and ios >= 13 and choice == "WhenInUse":
                st, provisional = "AuthorizedAlways", 1
            elif kind == "Always" and ios < 13:
                st = "AuthorizedWhenInUse"
            else:
                st, temporary = "AuthorizedWhenInUse", 1 if choice == "AllowOnce" else 0
            allow_once = temporary
            yield self.ld + L.authorization_changed(bundle, st, "Prompt", provisional, temporary)
            if ios >= 14 and st != "Denied":
                acc = "Reduced" if reduced_default or r.random() < 0.15 else "Full"
                self.accuracy[bundle] = acc
                yield self.ld + L.accuracy_changed(bundle, acc, 0)
            self.status[bundle] = st
            self.provisional[bundle] = bool(provisional)
            yield authcb()
        else:
            yield authcb()
        st = self.status[bundle]
        if st in ("Denied", "NotDetermined"):
            yield rbs("BackgroundRunning")
            yield rbs("BackgroundTaskSuspended")
            yield rbs("Terminated")
            return
        uses_bg = bg and r.random() < 0.6
        paused_anomaly = anomaly == "paused"
        if uses_bg and ios >= 9:
            yield trans("allowsBackgroundLocationUpdates", 0, 1)
        if paused_anomaly:
            yield trans("pausesLocationUpdatesAutomatically", 0, 1)
        temp_full = False
        if ios >= 14 and self.accuracy[bundle] == "Reduced" and "NSLocationTemporaryUsageDescriptionDictionary" in extra \
                and r.random() < 0.3:
            key = sorted(extra["NSLocationTemporaryUsageDescriptionDictionary"])[0]
            yield api("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", f', "purposeKey":"{key}"')
            yield self.ld + L.prompt(bundle, "TemporaryFullAccuracy", "Allow,Deny")
            yield self.ld + L.prompt_response(bundle, "Allow")
            yield self.ld + L.accuracy_changed(bundle, "Full", 1, key)
            self.accuracy[bundle] = "Full"
            temp_full = True
            yield authcb()
        if live and uses_bg:
            yield framework("CLBackgroundActivitySession", "backgroundActivitySession")
        if live:
            yield framework("CLLocationUpdate", "liveUpdates")
        else:
            yield api("startUpdatingLocation")
            yield trans("updatingLocation", 0, 1)
        private = ios >= 15 and r.random() < 0.2
        for i in range(r.randint(10, 240)):
            yield deliver(precise_override=(anomaly == "precise" and i == 5), private=private and i % 7 == 3)
        if paused_anomaly:
            yield trans("paused", 0, 1)
            for _ in range(r.randint(2, 5)):
                yield deliver()
            yield trans("paused", 1, 0)
        if uses_bg:
            yield rbs("BackgroundRunning")
            st = self.status[bundle]
            # due under WhenInUse, and under provisional Always (counts as WhenInUse); never set the
            # indicator flag, so real Always needs no bar
            due = st == "AuthorizedWhenInUse" or (st == "AuthorizedAlways" and self.provisional[bundle])
            show = due and anomaly != "bluebar"
            if show:
                yield self.ld + L.blue_bar(bundle, 1)
            for _ in range(r.randint(10, 300)):
                yield deliver()
            yield rbs("ForegroundRunning")
            if show:
                yield self.ld + L.blue_bar(bundle, 0)
            for _ in range(r.randint(1, 20)):
                yield deliver()
        if live:
            yield framework("CLLocationUpdate", "stop")
            if uses_bg:
                yield framework("CLBackgroundActivitySession", "invalidate")
        else:
            yield api("stopUpdatingLocation")
            yield trans("updatingLocation", 1, 0)
        if service_session:
            yield framework("CLServiceSession", "invalidate")
        yield rbs("BackgroundRunning")
        yield rbs("BackgroundTaskSuspended")
        yield rbs("Terminated")
        if temp_full:
            self.accuracy[bundle] = "Reduced"
        if allow_once:
            self.status[bundle] = "NotDetermined"  # Allow Once ends with the session


# --------------------------------------------------------------------------
# writer
# --------------------------------------------------------------------------


def parse_size(s: str) -> int:
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGkmg]?)i?[Bb]?\s*", s)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {s!r}: use e.g. 500K, 64M, 1G or a byte count")
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]
    return int(float(m.group(1)) * mult)


def write_device(path: str, name: str, target: int, day: datetime, ios: int, apps: list, r: random.Random,
                 share: float) -> dict:
    noise = Noise(r, ios)
    locs = Locations(r, ios, apps, noise.pids)
    out = open(path, "wb")
    gz = subprocess.Popen(["gzip", "-6", "-n", "-c"], stdin=subprocess.PIPE, stdout=out)
    written = 0
    lines = 0
    loc_lines = 0
    buf: list[str] = []
    buf_bytes = 0
    avg = sum(len(x) for x in noise.pool) / POOL_SIZE + len(name) + 18
    rate = target / avg / 86400.0
    acc = 0.0
    loc_acc = 0.0
    since_refresh = 0
    choices = r.choices
    pool = noise.pool
    minute_mult = 1.0
    t0 = day.replace(hour=0, minute=0, second=0, microsecond=0)
    utc0 = (t0 - CF_EPOCH).total_seconds()
    s = last_s = 0
    while written + buf_bytes < target:
        if s % 60 == 0:
            late = s >= 86400 - 3600
            minute_mult = 1.0 if s >= 86400 - 600 else r.choice((0.3, 0.6, 0.8, 1.0, 1.0, 1.2, 1.4, 1.7))
            if s and (late or s % 600 == 0):  # re-aim at the target: every 10 min, every minute in the last hour
                done = written + buf_bytes
                left_s = max(86400 - s, 60)
                if lines:
                    avg = done / lines
                rate = max(target - done, 0) / avg / left_s
        acc += rate * minute_mult
        n = int(acc)
        if n == 0:
            if s < 86399:
                s += 1
                continue
            n = 1  # past the day's last second: keep writing at 23:59:59 until the target is met
        else:
            acc -= n
        lt = t0 + timedelta(seconds=s)  # local wall time, as the device prints it
        prefix = f"{MON[lt.month]} {lt.day:>2} {lt.hour:02d}:{lt.minute:02d}:{lt.second:02d} {name} "
        bodies = choices(pool, k=n)
        loc_acc += n * share / (1.0 - share)  # k location lines per n noise lines: k / (n + k) = share
        k = int(loc_acc)
        if k:
            loc_acc -= k
            locs.now_cf = utc0 + s + r.random()
            # spread them over the second but keep their order: a session's lines within one second
            # (same timestamp) must stay in sequence; positions are final indices, inserted ascending
            for pos, body in zip(sorted(r.sample(range(n + k), k)), locs.take(k)):
                bodies.insert(pos, body)
            loc_lines += k
        chunk = prefix + ("\n" + prefix).join(bodies) + "\n"
        last_s = s
        buf.append(chunk)
        buf_bytes += len(chunk)
        lines += len(bodies)
        since_refresh += len(bodies)
        if since_refresh >= REFRESH_EVERY:
            since_refresh = 0
            noise.refresh()
        if buf_bytes >= FLUSH_BYTES:
            gz.stdin.write("".join(buf).encode("latin-1"))
            written += buf_bytes
            buf, buf_bytes = [], 0
        if s < 86399:
            s += 1  # a remainder past the last minute's estimate stays at 23:59:59: the file is one day
    if buf:
        gz.stdin.write("".join(buf).encode("latin-1"))
        written += buf_bytes
    gz.stdin.close()
    if gz.wait() != 0:
        raise SystemExit(f"gzip failed for {path}")
    out.close()
    return dict(path=path, bytes=written, gz=os.path.getsize(path), lines=lines, loc=loc_lines,
                end=(t0 + timedelta(seconds=last_s)).strftime("%H:%M:%S"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (created)")
    ap.add_argument("--size", type=parse_size, default=parse_size("1G"), help="uncompressed total, e.g. 1G, 64M")
    ap.add_argument("--devices", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--date", default="2026-11-20", help="the device-day, YYYY-MM-DD")
    ap.add_argument("--location-share", type=float, default=0.08, help="fraction of lines that are location events")
    ap.add_argument("--single", action="store_true", help="one device, one file")
    ap.add_argument("--prefix", default="qa-fleet", help="device name prefix (default qa-fleet)")
    a = ap.parse_args()
    ndev = 1 if a.single else a.devices
    if ndev < 1:
        ap.error("--devices must be at least 1")
    if not 0 <= a.location_share < 1:
        ap.error("--location-share must be in [0, 1)")
    try:
        day = datetime.fromisoformat(a.date)
    except ValueError:
        ap.error(f"--date {a.date!r} is not YYYY-MM-DD")
    os.makedirs(os.path.join(a.out, "apps"), exist_ok=True)
    tz = ZoneInfo("Europe/Paris")
    day = day.replace(tzinfo=tz)
    per = a.size // ndev
    t_start = time.monotonic()
    results = []
    used_apps = {}
    for i in range(ndev):
        r = random.Random(f"fleet-{a.seed}-{i}")
        model = MODELS[r.randrange(len(MODELS))]
        ios = int(model[0].split(".")[0])
        apps = r.sample(APPS, 5)
        for app in apps:
            used_apps[app[0]] = app
        name = f"{a.prefix}-{i + 1:02d}"
        stem = f"{name}-{a.date}"
        t1 = time.monotonic()
        res = write_device(os.path.join(a.out, stem + ".log.gz"), name, per, day, ios, apps, r, a.location_share)
        res["secs"] = time.monotonic() - t1
        captured = day.replace(hour=23, minute=59, second=59)
        with open(os.path.join(a.out, stem + ".ideviceinfo.txt"), "w") as f:
            f.write(ideviceinfo(name, model, tz, captured))
        res["ios"] = model[0]
        res["apps"] = ",".join(x[1] for x in apps)
        results.append(res)
        print(f"{os.path.basename(res['path'])}: iOS {res['ios']}, {res['lines']} records "
              f"({res['loc']} location, {res['loc'] / max(res['lines'], 1):.1%}), {res['bytes']} bytes -> "
              f"{res['gz']} gzipped, last line {res['end']}, apps {res['apps']}, {res['secs']:.1f}s "
              f"({res['bytes'] / 1e6 / max(res['secs'], 1e-9):.0f} MB/s)", file=sys.stderr)
    for bundle, app in sorted(used_apps.items()):
        with open(os.path.join(a.out, "apps", f"{bundle}.plist"), "wb") as f:
            f.write(plistlib.dumps(app_plist(*app), fmt=plistlib.FMT_XML, sort_keys=True))
    secs = time.monotonic() - t_start
    tb = sum(x["bytes"] for x in results)
    tg = sum(x["gz"] for x in results)
    print(f"total: {len(results)} files in {a.out}, {tb} bytes uncompressed ({tb / (1 << 20):.1f} MiB), "
          f"{tg} bytes gzipped ({tb / max(tg, 1):.1f}x), {len(used_apps)} app plists, {secs:.1f}s "
          f"({tb / 1e6 / max(secs, 1e-9):.0f} MB/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
