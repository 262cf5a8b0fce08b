#!/usr/bin/env python3
"""Regenerate samples/: small, hand-checkable inputs for locaudit.

    python3 scripts/make_samples.py [--out samples]

Deterministic: the same script writes the same bytes (fixed seeds, gzip
mtime 0, sorted plist keys). Everything under the output folder that this
script owns (devices/, apps/, logs/, broken/, containers/, README.md) is rewritten.

Message shapes follow docs/log-formats.md; the scenarios (and the
findings a tester should expect from them) are listed in samples/README.md,
which this script also writes.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import plistlib
import random
import shutil
import sys
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import locsynth as L
from locsynth import CF_EPOCH, MON, vis

MISSING = "<missing>"  # Ev.host value: the device-name field is absent from the line

# --------------------------------------------------------------------------
# Devices (ideviceinfo)
# --------------------------------------------------------------------------


@dataclass
class Device:
    name: str
    ios: str
    build: str
    product: str
    hw: str
    platform: str
    chip: int
    model: str
    tz: str
    new_udid: bool
    color: str = "#3b3b3c"
    base: tuple = (48.858370, 2.294481)  # Eiffel Tower, Paris

    @property
    def major(self) -> int:
        return int(self.ios.split(".")[0])

    @property
    def ecid(self) -> int:
        return L.ecid(self.name)

    @property
    def udid(self) -> str:
        return L.udid(self.name, self.chip, self.new_udid)

    @property
    def cpu(self) -> str:
        return "arm64e" if self.chip >= 0x8020 else "arm64"

    def h(self, what: str, n: int, alphabet: str = L.SERIAL_ALPHABET) -> str:
        return L.ident(self.name, what, n, alphabet)

    def mac(self, what: str) -> str:
        return L.mac(self.name, what)

    def ideviceinfo(self, captured: datetime) -> str:
        tz = ZoneInfo(self.tz)
        off = captured.astimezone(tz).utcoffset().total_seconds()
        b64 = lambda what, n: base64.b64encode(hashlib.sha256((what + self.name).encode()).digest()[:n]).decode()
        kv = {
            "ActivationState": "Activated",
            "ActivationStateAcknowledged": "true",
            "BasebandActivationTicketVersion": "V2",
            "BasebandCertId": str(int(self.h("bbcert", 9, "0123456789"))),
            "BasebandSerialNumber": b64("bbsn", 4),
            "BasebandStatus": "BBInfoAvailable",
            "BasebandVersion": {7: "2.18.02", 8: "4.32.00", 10: "3.71.01", 12: "7.80.04",
                                13: "1.06.00", 14: "1.72.02", 17: "1.65.02", 18: "1.10.03"}[self.major],
            "BluetoothAddress": self.mac("bt"),
            "BoardId": "2",
            "BootSessionID": self.h("boot", 8, "0123456789ABCDEF") + "-" + self.h("boot2", 4, "0123456789ABCDEF")
            + "-" + self.h("boot3", 4, "0123456789ABCDEF") + "-" + self.h("boot4", 4, "0123456789ABCDEF")
            + "-" + self.h("boot5", 12, "0123456789ABCDEF"),
            "BrickState": "false",
            "BuildVersion": self.build,
            "CPUArchitecture": self.cpu,
            "CertID": str(int(self.h("cert", 9, "0123456789"))),
            "ChipID": str(self.chip),
            "DeviceClass": "iPhone",
            "DeviceColor": self.color,
            "DeviceName": self.name,
            "DieID": str(int(self.h("die", 15, "0123456789"))),
            "EthernetAddress": self.mac("eth"),
            "FirmwareVersion": {7: "iBoot-1940.10.58", 8: "iBoot-2261.3.33", 10: "iBoot-3406.60.10",
                                12: "iBoot-4513.260.81", 13: "iBoot-5540.140.12", 14: "iBoot-6723.140.2",
                                17: "iBoot-10151.122.1", 18: "iBoot-11881.40.110"}[self.major],
            "HardwareModel": self.hw,
            "HardwarePlatform": self.platform,
            "HasSiDP": "true",
            "HostAttached": "true",
            "HumanReadableProductVersionString": self.ios,
            "ModelNumber": self.model,
            "PartitionType": "GUID_partition_scheme",
            "PasswordProtected": "true",
            "ProductName": "iPhone OS",
            "ProductType": self.product,
            "ProductVersion": self.ios,
            "ProductionSOC": "true",
            "ProtocolVersion": "2",
            "RegionInfo": "NF/A" if self.tz.startswith("Europe") else "LL/A",
            "SerialNumber": self.h("serial", 12),
            "TelephonyCapability": "true",
            "TimeIntervalSince1970": f"{captured.timestamp():.6f}",
            "TimeZone": self.tz,
            "TimeZoneOffsetFromUTC": f"{off:.6f}",
            "TrustedHostAttached": "true",
            "UniqueChipID": str(self.ecid),
            "UniqueDeviceID": self.udid,
            "UseRaptorCerts": "false",
            "Uses24HourClock": "true" if self.tz.startswith("Europe") else "false",
            "WiFiAddress": self.mac("wifi"),
        }
        if self.major < 10:
            kv.pop("HumanReadableProductVersionString")
        if self.major < 13:
            kv.pop("BootSessionID")
        return "".join(f"{k}: {v}\n" for k, v in sorted(kv.items()))


NYC = (40.782865, -73.965355)  # Central Park, New York

DEVICES = {
    "7": Device("qa-iphone5s-7", "7.1.2", "11D257", "iPhone6,1", "N51AP", "s5l8960x", 0x8960, "ME432", "Europe/Paris", False),
    "8": Device("qa-iphone6-8", "8.4", "12H143", "iPhone7,2", "N61AP", "t7000", 0x7000, "MG472", "Europe/Paris", False, "#e1e4e3"),
    "10": Device("qa-iphone7-10", "10.3.3", "14G60", "iPhone9,3", "D101AP", "t8010", 0x8010, "MN8X2", "Europe/Paris", False, "#1e1e1e"),
    "12": Device("qa-iphone6plus-12", "12.5.7", "16H81", "iPhone7,1", "N56AP", "t7000", 0x7000, "MGA82", "Europe/Paris", False),
    "13": Device("qa-iphone11-13", "13.7", "17H35", "iPhone12,1", "N104AP", "t8030", 0x8030, "MWLT2", "Europe/Paris", True, "#1f2020"),
    "14": Device("qa-iphone12-14", "14.8", "18H17", "iPhone13,2", "D53gAP", "t8101", 0x8101, "MGJA3", "Europe/Paris", True, "#2e3046"),
    "17": Device("qa-iphone14pro-17", "17.5.1", "21F90", "iPhone15,2", "D73AP", "t8120", 0x8120, "MQ0G3", "Europe/Paris", True, "#403e3d"),
    "18": Device("qa-iphone15pro-18", "18.1", "22B83", "iPhone16,1", "D83AP", "t8130", 0x8130, "MTUV3", "America/New_York", True, "#3c3c3d", NYC),
}

# --------------------------------------------------------------------------
# Apps (Info.plist)
# --------------------------------------------------------------------------


@dataclass
class App:
    bundle: str
    exe: str
    version: str
    build: str
    plist: dict
    binary: bool

    @property
    def client_key(self) -> str:
        return f"i{self.bundle}:"


def _base_plist(bundle, exe, name, version, build, min_os):
    return {
        "CFBundleDevelopmentRegion": "en",
        "CFBundleDisplayName": name,
        "CFBundleExecutable": exe,
        "CFBundleIdentifier": bundle,
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": name,
        "CFBundlePackageType": "APPL",
        "CFBundleShortVersionString": version,
        "CFBundleSupportedPlatforms": ["iPhoneOS"],
        "CFBundleVersion": build,
        # Xcode writes the SDK into the built Info.plist (rules model v2 reads it): Xcode 15.4.
        "DTPlatformName": "iphoneos",
        "DTPlatformVersion": "17.5",
        "DTSDKName": "iphoneos17.5",
        "LSRequiresIPhoneOS": True,
        "MinimumOSVersion": min_os,
        "UIDeviceFamily": [1],
        "UIRequiredDeviceCapabilities": ["arm64"],
        "UISupportedInterfaceOrientations": ["UIInterfaceOrientationPortrait"],
    }


def make_apps() -> dict[str, App]:
    runner = _base_plist("com.example.runner", "Runner", "Runner", "3.2.0", "3200.14", "7.0")
    runner.update({
        "UIBackgroundModes": ["location"],
        "NSLocationUsageDescription": "Runner records your route while you run.",
        "NSLocationWhenInUseUsageDescription": "Runner shows your position on the map while you run.",
        "NSLocationAlwaysUsageDescription": "Runner keeps recording your run when the screen is off.",
        "NSLocationAlwaysAndWhenInUseUsageDescription": "Runner keeps recording your run when the screen is off.",
        "NSLocationTemporaryUsageDescriptionDictionary": {
            "Delivery": "Your exact position lets the courier find you.",
            "Navigation": "Turn-by-turn directions need your exact position.",
        },
        "NSLocationDefaultAccuracyReduced": True,
    })
    weather = _base_plist("com.example.weather", "WeatherNow", "Weather Now", "5.0.1", "501", "7.0")
    weather.update({
        "UIBackgroundModes": ["fetch"],
        "NSLocationWhenInUseUsageDescription": "Weather Now shows the forecast where you are.",
    })
    legacy = _base_plist("com.example.legacy", "Legacy", "Legacy", "1.4", "14", "7.0")
    legacy.update({
        "NSLocationAlwaysUsageDescription": "Legacy tracks deliveries in the background.",
        "NSLocationWhenInUseUsageDescription": "Legacy shows nearby depots.",
        "NSLocationDefaultAccuracyReduced": "YES",  # config error: must be a Boolean
    })
    tracker = _base_plist("com.example.tracker", "Tracker", "Tracker", "2.0.3", "2.0.3.77", "9.0")
    tracker.update({
        "UIBackgroundModes": ["audio", "remote-notification"],  # no "location"
        "NSLocationWhenInUseUsageDescription": "Tracker logs your trips.",
        "NSLocationAlwaysUsageDescription": "Tracker logs your trips in the background.",
        "NSLocationAlwaysAndWhenInUseUsageDescription": "Tracker logs your trips in the background.",
    })
    return {
        "runner": App("com.example.runner", "Runner", "3.2.0", "3200.14", runner, True),
        "weather": App("com.example.weather", "WeatherNow", "5.0.1", "501", weather, False),
        "legacy": App("com.example.legacy", "Legacy", "1.4", "14", legacy, False),
        "tracker": App("com.example.tracker", "Tracker", "2.0.3", "2.0.3.77", tracker, True),
    }


APPS = make_apps()

# --------------------------------------------------------------------------
# Events and JSON-like messages
# --------------------------------------------------------------------------


class Raw(str):
    """A value printed as is (numbers with a fixed format, <private>, <mask.hash: ...>)."""


def jv(v) -> str:
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}":{jv(x)}' for k, x in v.items()) + "}"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def jm(msg: str, **kw) -> str:
    """`{"msg":"...", "key":value}` as CoreLocation prints it (`self_` -> `self`)."""
    d = {"msg": msg}
    for k, v in kw.items():
        d[k[:-1] if k.endswith("_") else k] = v
    return jv(d)


@dataclass
class Ev:
    t: datetime
    proc: str
    pid: int
    msg: str
    type: str = "Default"   # Default, Info, Debug, Error, Fault, Warning (old syslog), Activity
    lib: str | None = None  # sender image shown in parentheses
    sub: str = ""
    cat: str = ""
    host: str | None = None  # None: device name, "": empty field, MISSING: no field
    raw: str | None = None   # idevicesyslog-only line printed verbatim (noise lines)
    seq: int = 0


PATHS = {
    "SpringBoard": "/System/Library/CoreServices/SpringBoard.app/SpringBoard",
    "locationd": "/usr/libexec/locationd",
    "backboardd": "/usr/libexec/backboardd",
    "kernel": "/kernel",
    "wifid": "/usr/sbin/wifid",
    "mDNSResponder": "/usr/sbin/mDNSResponder",
    "CommCenter": "/System/Library/Frameworks/CoreTelephony.framework/Support/CommCenter",
    "runningboardd": "/usr/libexec/runningboardd",
    "dasd": "/usr/libexec/dasd",
    "symptomsd": "/usr/libexec/symptomsd",
    "apsd": "/System/Library/PrivateFrameworks/ApplePushService.framework/apsd",
    "bluetoothd": "/usr/sbin/bluetoothd",
    "powerd": "/System/Library/CoreServices/powerd.bundle/powerd",
    "nsurlsessiond": "/usr/libexec/nsurlsessiond",
    "ReportCrash": "/System/Library/CoreServices/ReportCrash",
    "mediaserverd": "/usr/sbin/mediaserverd",
    "searchd": "/System/Library/PrivateFrameworks/CoreSpotlight.framework/searchd",
    "thermalmonitord": "/usr/libexec/thermalmonitord",
    "UserEventAgent": "/usr/libexec/UserEventAgent",
    "itunesstored": "/System/Library/PrivateFrameworks/iTunesStore.framework/Support/itunesstored",
}
LIB_PATHS = {
    "CoreLocation": "/System/Library/Frameworks/CoreLocation.framework/CoreLocation",
    "FrontBoard": "/System/Library/PrivateFrameworks/FrontBoard.framework/FrontBoard",
    "CoreFoundation": "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation",
    "libc++abi.dylib": "/usr/lib/libc++abi.dylib",
    "libnetwork.dylib": "/usr/lib/libnetwork.dylib",
    "CFNetwork": "/System/Library/Frameworks/CFNetwork.framework/CFNetwork",
    "UIKitCore": "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore",
    "RunningBoardServices": "/System/Library/PrivateFrameworks/RunningBoardServices.framework/RunningBoardServices",
}

# Non-location noise: (process, library, subsystem, category, type, min iOS, max iOS, message maker)
NOISE = [
    ("SpringBoard", None, "com.apple.SpringBoard", "Common", "Default", 7, 99,
     lambda r: f"SBLockScreenManager: unlocking device, source: {r.choice(['swipe', 'passcode', 'biometric'])}"),
    ("SpringBoard", None, "com.apple.SpringBoard", "Common", "Default", 7, 99,
     lambda r: f"Setting backlight level to {r.uniform(0.2, 0.9):.3f} (source: ALS)"),
    ("SpringBoard", "FrontBoard", "com.apple.FrontBoard", "Common", "Default", 8, 99,
     lambda r: f"[FBSystemService] Received request to open \"com.apple.{r.choice(['mobilesafari', 'mobilemail', 'Maps', 'camera'])}\" from SpringBoard:{r.randint(40, 70)}"),
    ("SpringBoard", None, "com.apple.SpringBoard", "StatusBar", "Default", 7, 99,
     lambda r: f"Status bar data changed: battery {r.randint(21, 98)}%, signal {r.randint(1, 4)} bars"),
    ("backboardd", None, "com.apple.backboard", "hid", "Default", 7, 99,
     lambda r: f"HID: touch down (contextID: 0x{r.getrandbits(32):x}), location {{{r.randint(20, 370)}, {r.randint(40, 800)}}}"),
    ("backboardd", None, "com.apple.backboard", "brightness", "Default", 7, 99,
     lambda r: f"Brightness changed to {r.uniform(0.1, 1):.4f} (lux {r.randint(3, 900)})"),
    ("kernel", None, "", "", "Default", 7, 99,
     lambda r: f"AppleKeyStore: operation failed (pid: {r.randint(80, 900)} sel: 7 ret: e00002c2 '-536870206')"),
    ("kernel", None, "", "", "Default", 7, 99,
     lambda r: f"Sandbox: {r.choice(['MobileSafari', 'MobileMail', 'Maps', 'searchd'])}({r.randint(100, 1500)}) deny(1) file-read-metadata /private/var/mobile/Library/Preferences"),
    ("kernel", None, "", "", "Default", 7, 99,
     lambda r: f"wlan0: RSSI {-r.randint(45, 80)} dBm, noise {-r.randint(88, 95)} dBm, rate {r.choice([72, 144, 433, 866])} Mbps"),
    ("kernel", None, "", "", "Default", 10, 99,
     lambda r: f"memorystatus: killing_idle_process pid {r.randint(300, 2000)} [{r.choice(['Stocks', 'Podcasts', 'Books'])}] (sustained-memory-pressure {r.randint(1, 5)}) - memorystatus_available_pages: {r.randint(8000, 30000)}"),
    ("wifid", None, "com.apple.WiFiManager", "wifi", "Default", 7, 99,
     lambda r: f"WiFi:[{r.uniform(8.1e8, 8.2e8):.3f}]: Processing scan results: {r.randint(4, 31)} networks, strongest RSSI {-r.randint(40, 70)}"),
    ("wifid", None, "com.apple.WiFiManager", "lqm", "Default", 7, 99,
     lambda r: f"__WiFiLQAMgrLogStats({r.choice(['Caf' + chr(233) + ' Lumi' + chr(232) + 're', 'QA-LAB-5G', 'QA-LAB'])}:Stationary): Rssi: {-r.randint(50, 75)} Snr: {r.randint(15, 40)} TxFrames: {r.randint(10, 900)}"),
    ("mDNSResponder", None, "com.apple.mDNSResponder", "Default", "Default", 7, 99,
     lambda r: f"mDNS_Register_internal: Registering QA-Lab\\032AirPlay\\032{r.randint(1, 4)}._airplay._tcp.local. (SRV) port {r.choice([7000, 7100])}"),
    ("mDNSResponder", None, "com.apple.mDNSResponder", "Default", "Default", 7, 99,
     lambda r: f"[R{r.randint(1000, 9999)}] DNSServiceQueryRecord({r.choice(['api.weather.example.com', 'tiles.example.com', 'gs-loc.apple.com', 'init.itunes.apple.com'])}, A) START PID[{r.randint(100, 1500)}]"),
    ("CommCenter", None, "com.apple.CommCenter", "ul", "Default", 7, 99,
     lambda r: f"#I Signal strength: bars={r.randint(1, 4)} rssi={-r.randint(75, 110)} rscp={-r.randint(80, 115)} ecio={-r.randint(3, 15)}"),
    ("CommCenter", None, "com.apple.CommCenter", "ul", "Default", 7, 99,
     lambda r: f"#I CSIPacketAddress: data context {r.randint(0, 3)} active, bytes in {r.randint(1000, 90000)} out {r.randint(500, 30000)}"),
    ("locationd", None, "com.apple.locationd.Position", "Position", "Default", 7, 99,
     lambda r: jm("WifiTile", event="activity", tiles=r.randint(1, 6), cached=r.randint(0, 1), age=Raw(f"{r.uniform(1, 900):.1f}"))),
    ("locationd", None, "com.apple.locationd.Core", "Core", "Default", 7, 99,
     lambda r: jm("state transition", event="state_transition", state="Fence", id="0x" + format(r.getrandbits(36), "x"), property="monitoring", old=0, new=1)),
    ("locationd", None, "com.apple.locationd.Motion", "Motion", "Default", 7, 99,
     lambda r: jm("Incoming message", event="activity", name="kCLConnectionMessageMotionActivityQuery", this="0x" + format(r.getrandbits(36), "x"), registrationReceived=0)),
    ("runningboardd", None, "com.apple.runningboard", "process", "Default", 13, 99,
     lambda r: f"[app<com.apple.{r.choice(['mobilemail', 'Preferences', 'MobileSMS'])}>:{r.randint(300, 2000)}] Set jetsam priority to {r.choice([3, 10, 100])} [0] flag[1]"),
    ("dasd", None, "com.apple.duetactivityscheduler", "scoring", "Default", 10, 99,
     lambda r: f"com.apple.{r.choice(['photoanalysisd', 'mediaanalysisd', 'cloudd'])}.background:{r.getrandbits(16):04X}:[{{name: ThermalPolicy, policyWeight: 5.000, response: {{Decision: Can Proceed, Score: {r.uniform(0, 1):.2f}}}}}] ]"),
    ("symptomsd", None, "com.apple.symptomsd", "flow", "Default", 10, 99,
     lambda r: f"Data Usage for {r.choice(['WeatherNow', 'Runner', 'nsurlsessiond', 'apsd'])} on flow {r.randint(1000, 99999)} - WiFi in: {r.randint(0, 90000)}, WiFi out: {r.randint(0, 9000)}"),
    ("apsd", None, "com.apple.apsd", "connection", "Default", 7, 99,
     lambda r: f"<APSCourier: 0x{r.getrandbits(36):x}> Sending keep-alive, interval {r.choice([900, 1800])}s on interface {r.choice(['pdp_ip0', 'en0'])}"),
    ("bluetoothd", None, "com.apple.bluetooth", "Server", "Default", 7, 99,
     lambda r: f"Device found: {r.getrandbits(48):012X} RSSI {-r.randint(50, 99)} type {r.choice(['Watch', 'Headphones', 'Unknown'])}"),
    ("powerd", None, "com.apple.powerd", "battery", "Default", 7, 99,
     lambda r: f"Battery capacity change: {r.randint(20, 99)}%, temperature {r.uniform(24, 38):.1f}C, charging {r.choice(['no', 'no', 'yes'])}"),
    ("nsurlsessiond", "CFNetwork", "com.apple.CFNetwork", "Summary", "Default", 8, 99,
     lambda r: f"Task <{r.getrandbits(32):08X}-{r.getrandbits(16):04X}>.<{r.randint(1, 9)}> finished with status {r.choice([200, 200, 200, 304, 404])} bytes {r.randint(200, 90000)}"),
    ("mediaserverd", None, "com.apple.coremedia", "audio", "Default", 7, 99,
     lambda r: f"FigAudioSession: category AVAudioSessionCategoryAmbient, route {r.choice(['Speaker', 'Headphones'])}"),
    ("thermalmonitord", None, "com.apple.thermalmonitor", "thermal", "Default", 10, 99,
     lambda r: f"<Notice> Thermal level {r.choice([0, 0, 0, 10])}, skin temperature {r.uniform(28, 37):.2f}"),
    ("searchd", None, "com.apple.spotlight", "Index", "Default", 8, 99,
     lambda r: f"Indexed {r.randint(1, 40)} items for bundle com.apple.{r.choice(['mobilemail', 'mobilenotes', 'MobileSMS'])}"),
    ("UserEventAgent", None, "com.apple.UserEventAgent", "cts", "Default", 7, 99,
     lambda r: f"com.apple.cts.{r.choice(['batteryLevel', 'wifiPower', 'wake'])} notification fired, {r.randint(0, 5)} jobs"),
]


class Scene:
    """Events of one device-file, with system pids and a deterministic random source."""

    def __init__(self, dev: Device, seed: str):
        self.dev = dev
        self.ios = dev.major
        self.tz = ZoneInfo(dev.tz)
        self.rng = random.Random(seed)
        self.evs: list[Ev] = []
        r = self.rng
        self.pids = {
            "kernel": 0, "SpringBoard": r.randint(44, 60), "locationd": r.randint(60, 90),
            "backboardd": r.randint(30, 43), "wifid": r.randint(91, 110), "mDNSResponder": r.randint(111, 130),
            "CommCenter": r.randint(131, 150), "runningboardd": r.randint(31, 40), "dasd": r.randint(151, 170),
            "symptomsd": r.randint(171, 190), "apsd": r.randint(191, 210), "bluetoothd": r.randint(211, 230),
            "powerd": r.randint(20, 29), "nsurlsessiond": r.randint(231, 260), "mediaserverd": r.randint(261, 280),
            "thermalmonitord": r.randint(281, 300), "searchd": r.randint(301, 330), "UserEventAgent": r.randint(10, 19),
            "ReportCrash": r.randint(1900, 2100), "itunesstored": r.randint(331, 360),
        }
        self.next_app_pid = r.randint(400, 700)
        self.tids: dict[tuple, int] = {}
        self.uuids: dict[str, str] = {}

    def T(self, day: str, hms: str) -> datetime:
        y, m, d = (int(x) for x in day.split("-"))
        hh, mm, ss = (int(x) for x in hms.split(":"))
        return datetime(y, m, d, hh, mm, ss, self.rng.randint(1000, 400000), tzinfo=self.tz)

    def app_pid(self) -> int:
        self.next_app_pid += self.rng.randint(40, 400)
        return self.next_app_pid

    def addr(self) -> str:
        return "0x1" + format(self.rng.getrandbits(32), "08x")

    def uuid(self, key: str) -> str:
        if key not in self.uuids:
            h = hashlib.md5((self.dev.name + key).encode()).hexdigest().upper()
            self.uuids[key] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
        return self.uuids[key]

    def tid(self, proc: str, pid: int) -> int:
        k = (proc, pid)
        if k not in self.tids:
            self.tids[k] = self.rng.randint(0x1000, 0x4fffff)
        return self.tids[k]

    def add(self, t: datetime, proc: str, msg: str, pid: int | None = None, **kw) -> Ev:
        ev = Ev(t, proc, self.pids[proc] if pid is None else pid, msg, seq=len(self.evs), **kw)
        self.evs.append(ev)
        return ev

    def locd(self, t, msg, cat="Client", **kw):
        return self.add(t, "locationd", msg, sub="com.apple.locationd.Core", cat=cat, **kw)

    def sb(self, t, msg, **kw):
        return self.add(t, "SpringBoard", msg, lib="FrontBoard", sub="com.apple.FrontBoard", cat="Process", **kw)

    def raw(self, t, text):
        return self.add(t, "", "", pid=0, raw=text)

    def noise(self, start: datetime, end: datetime, n: int):
        span = (end - start).total_seconds()
        pool = [x for x in NOISE if x[5] <= self.ios <= x[6]]
        for _ in range(n):
            t = start + timedelta(seconds=self.rng.uniform(0, span))
            proc, lib, sub, cat, typ, _a, _b, fn = self.rng.choice(pool)
            if self.rng.random() < 0.05:
                typ = "Error"
            self.add(t, proc, fn(self.rng), lib=lib, sub=sub, cat=cat, type=typ)

    def sorted(self) -> list[Ev]:
        return sorted(self.evs, key=lambda e: (e.t, e.seq))


class Run:
    """One run (session) of one app process: its own lines and the system lines about it."""

    def __init__(self, sc: Scene, app: App, t: datetime, pid: int | None = None):
        self.sc, self.app, self.t = sc, app, t
        self.pid = pid or sc.app_pid()
        self.mgr, self.dlg = sc.addr(), sc.addr()
        self.lat, self.lon = sc.dev.base
        self.alt = 35.0

    # clock
    def tick(self) -> datetime:
        self.t += timedelta(microseconds=self.sc.rng.randint(900, 60000))
        return self.t

    def wait(self, s: float):
        self.t += timedelta(seconds=s)
        return self

    def at(self, day: str, hms: str):
        self.t = self.sc.T(day, hms)
        return self

    # system processes
    def sys(self, msg, **kw):
        return self.sc.locd(self.tick(), msg, **kw)

    def launch(self, intent="foreground-interactive"):
        self.sc.sb(self.tick(), L.bootstrapping(self.app.bundle, intent))
        if intent == "foreground-interactive":
            self.state("ForegroundRunning")
        return self

    def state(self, notification: str, cliua=True):
        self.sys(L.app_state(notification, self.pid, self.app.bundle))
        if cliua:  # real companion line, same facts, other msg: must not double count
            self.sys(jm("#CLIUA AppMonitor notification", notification=notification, pid=self.pid,
                        bundleId=self.app.bundle, ClientKey=self.app.client_key))
            if notification in ("ForegroundRunning", "BackgroundRunning"):
                self.sys(jm("#CLIUA Marking change", clientKey=self.app.client_key,
                            reason="Process state from RunningBoard",
                            AssertionLevel="kCLClientInUseLevelDirectUserEngagement",
                            coming=1 if notification == "ForegroundRunning" else 0))
        return self

    def terminate(self):
        return self.state("Terminated", cliua=False)

    def prompt(self, kind, options):
        self.sys(L.prompt(self.app.bundle, kind, options))
        self.wait(self.sc.rng.uniform(1.5, 4.0))
        return self

    def answer(self, choice):
        self.sys(L.prompt_response(self.app.bundle, choice))
        return self

    def changed(self, status, reason="Prompt", provisional=0, temporary=0):
        self.sys(L.authorization_changed(self.app.bundle, status, reason, provisional, temporary))
        return self

    def accuracy(self, acc, temporary=0, purposeKey=None, reason=None):
        self.sys(L.accuracy_changed(self.app.bundle, acc, temporary, purposeKey, reason))
        return self

    def bluebar(self, visible):
        self.sys(L.blue_bar(self.app.bundle, visible))
        return self

    def relaunch_for(self, service):
        self.sc.sb(self.tick(), L.bootstrapping(self.app.bundle, "background"))
        self.sys(L.launch_client(self.app.bundle, service), cat="Core")
        self.state("BackgroundRunning")
        return self

    # the app's own process
    def own(self, msg, lib="CoreLocation", typ="Default", sub="com.apple.CoreLocation", cat="Client"):
        lib = lib if self.sc.ios >= 8 else None
        return self.sc.add(self.tick(), self.app.exe, msg, pid=self.pid, lib=lib, sub=sub, cat=cat, type=typ)

    def register(self):
        return self.api("onClientEventRegistration:", clientKey=self.app.client_key)

    def api(self, cmd, **kw):
        self.own(L.activity(cmd, self.mgr, "".join(f', "{k}":{jv(v)}' for k, v in kw.items())))
        return self

    def trans(self, prop, old, new):
        self.own(L.transition(self.mgr, prop, old, new))
        return self

    def authcb(self, status, limits=0):
        self.own(L.told(self.mgr, self.dlg, status, modern=self.sc.ios >= 14, limits=limits, widget=0))
        return self

    def deliver(self, n=1, every=1.0, hacc=5.0, private=False, speed=1.4):
        r = self.sc.rng
        for i in range(n):
            if i:
                self.wait(every * r.uniform(0.85, 1.15))
            self.lat += r.uniform(0.00001, 0.00004)
            self.lon -= r.uniform(0.00001, 0.00005)
            self.alt += r.uniform(-0.4, 0.4)
            fix = self.t - timedelta(seconds=r.uniform(0.05, 0.4))
            ts = (fix - CF_EPOCH).total_seconds()
            if private:
                loc = Raw("<private>")
            else:
                ha = hacc if isinstance(hacc, (int, float)) else r.choice(hacc)
                loc = {
                    "latitude": Raw(f"{self.lat:.6f}"), "longitude": Raw(f"{self.lon:.6f}"),
                    "altitude": Raw(f"{self.alt:.1f}"),
                    "horizontalAccuracy": Raw(f"{ha:g}"), "verticalAccuracy": Raw(f"{r.uniform(3, 12):.1f}" if ha < 100 else "-1"),
                    "speed": Raw(f"{speed + r.uniform(-0.3, 0.3):.2f}" if speed >= 0 else "-1"),
                    "course": Raw(f"{r.uniform(280, 320):.1f}" if speed >= 0 else "-1"),
                    "timestamp": Raw(f"{ts:.2f}"), "floor": 0,
                }
            self.own(L.delivered(self.mgr, self.dlg, jv(loc)))
        return self

    def log(self, msg, typ="Default", lib=None):
        return self.sc.add(self.tick(), self.app.exe, msg, pid=self.pid, lib=lib, sub="", cat="", type=typ)


# --------------------------------------------------------------------------
# Renderers
# --------------------------------------------------------------------------


SYSLOG_LEVEL = {"Default": "Notice", "Info": "Info", "Debug": "Debug", "Error": "Error", "Fault": "Error",
                "Warning": "Warning"}


def idevicesyslog_record(ev: Ev, dev: Device) -> str:
    if ev.raw is not None:
        return ev.raw
    t = ev.t
    ts = f"{MON[t.month]} {t.day:>2} {t:%H:%M:%S}"
    proc = ev.proc
    if ev.lib and dev.major >= 10:
        proc += f"({ev.lib})"
    level = SYSLOG_LEVEL[ev.type]
    if dev.major <= 8 and level == "Notice" and ev.proc not in ("locationd",) and ev.type == "Default":
        level = "Warning"  # old ASL era: most third-party and many system lines were <Warning>
    host = dev.name if ev.host is None else ev.host
    head = f"{ts} {proc}" if host == MISSING else f"{ts} {host} {proc}"
    return f"{head}[{ev.pid}] <{level}>: {vis(ev.msg)}"


def render_idevicesyslog(evs, dev, nul=False) -> bytes:
    out = []
    for ev in evs:
        rec = idevicesyslog_record(ev, dev)
        if nul and ev.raw is None or nul and ev.raw.startswith("---"):
            out.append(rec + "\n\x00")  # syslog_relay's raw stream: each record ends "\n\0"
        else:
            out.append(rec + "\n")
    return "".join(out).encode("ascii")


def ts_logshow(t: datetime) -> str:
    off = t.strftime("%z")
    return f"{t:%Y-%m-%d %H:%M:%S}.{t.microsecond:06d}{off}"


def body_logshow(ev: Ev) -> str:
    s = ""
    if ev.lib:
        s += f"({ev.lib}) "
    if ev.sub:
        s += f"[{ev.sub}:{ev.cat}] "
    return s + ev.msg


def render_logshow_default(sc: Scene, evs, predicate) -> bytes:
    lines = [f'Filtering the log data using "{predicate}"',
             "Skipping info and debug messages, pass --info and/or --debug to include.",
             "Timestamp                       Thread     Type        Activity             PID    TTL  "]
    counts = {"Default": 0, "Info": 0, "Debug": 0, "Error": 0, "Fault": 0, "Activity": 0}
    for ev in evs:
        tid = f"0x{sc.tid(ev.proc, ev.pid):x}"
        act = f"0x{sc.rng.randint(0x10000, 0x2fffff):x}" if ev.type == "Activity" or sc.rng.random() < 0.15 else "0x0"
        ttl = "0" if sc.rng.random() < 0.8 else str(sc.rng.choice([3, 7, 14, 30]))
        counts[ev.type] += 1
        if ev.type == "Activity":
            body = (f"({ev.lib}) " if ev.lib else "") + ev.msg
        else:
            body = body_logshow(ev)
        lines.append(f"{ts_logshow(ev.t)} {tid:<10} {ev.type:<11} {act:<20} {ev.pid:<6} {ttl:<4} {ev.proc}: {body}")
    lines.append("-" * 116)
    lines.append(f"Log      - Default: {counts['Default']:10d}, Info: {counts['Info']:16d}, Debug: {counts['Debug']:13d}, "
                 f"Error: {counts['Error']:10d}, Fault: {counts['Fault']:10d}")
    lines.append(f"Activity - Create: {counts['Activity']:11d}, Transition: {0:10d}, Actions: {0:11d}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def render_logshow_syslog(sc: Scene, evs, predicate) -> bytes:
    lines = [f'Filtering the log data using "{predicate}"',
             "Skipping info and debug messages, pass --info and/or --debug to include.",
             "Timestamp                       (process)[PID]    "]
    for ev in evs:
        lines.append(f"{ts_logshow(ev.t)}  localhost {ev.proc}[{ev.pid}]: {body_logshow(ev)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def app_path(sc: Scene, proc: str) -> str | None:
    for a in APPS.values():
        if a.exe == proc:
            return f"/private/var/containers/Bundle/Application/{sc.uuid('container' + a.bundle)}/{a.exe}.app/{a.exe}"
    return None


def os_record(sc: Scene, ev: Ev, first="traceID") -> dict:
    """One record of `log show --style ndjson/json` (key order as `log` prints it)."""
    r = sc.rng
    ppath = PATHS.get(ev.proc) or app_path(sc, ev.proc)
    spath = LIB_PATHS.get(ev.lib, ppath) if ev.lib else ppath
    activity = ev.type == "Activity"
    rec = {
        "traceID": r.getrandbits(52),
        "eventMessage": ev.msg,
        "eventType": "activityCreateEvent" if activity else "logEvent",
        "source": None,
        "formatString": ev.msg if activity else "%{public}s",
        "activityIdentifier": r.randint(1000, 900000) if activity else 0,
        "subsystem": ev.sub,
        "category": ev.cat,
        "threadID": sc.tid(ev.proc, ev.pid),
        "senderImageUUID": sc.uuid("img" + spath),
        "backtrace": {"frames": [{"imageOffset": r.randint(4096, 2000000), "imageUUID": sc.uuid("img" + spath)}]},
        "bootUUID": "",
        "processImagePath": ppath,
        "timestamp": ts_logshow(ev.t),
        "senderImagePath": spath,
        "machTimestamp": int((ev.t - CF_EPOCH).total_seconds() * 24e6) % (1 << 50),
        "messageType": {"Default": "Default", "Error": "Error", "Fault": "Fault", "Info": "Info", "Debug": "Debug",
                        "Warning": "Default"}.get(ev.type),
        "processImageUUID": sc.uuid("img" + ppath),
        "processID": ev.pid,
        "senderProgramCounter": r.randint(4096, 2000000),
        "parentActivityIdentifier": 0,
        "timezoneName": "",
    }
    if activity:
        del rec["messageType"]  # activity events have no messageType
    if first != "traceID":
        rec = {first: rec[first], **{k: v for k, v in rec.items() if k != first}}
    return rec


def jdump(v) -> str:
    # `log` escapes "/" as "\/" (NSJSONSerialization)
    return json.dumps(v, ensure_ascii=False, separators=(",", ":")).replace("/", "\\/")


def render_ndjson(sc: Scene, evs, banner=None, trailer=True) -> bytes:
    lines = [f'Filtering the log data using "{banner}"'] if banner else []
    for ev in evs:
        lines.append(jdump(os_record(sc, ev)))
    if trailer:
        lines.append(jdump({"count": len(evs), "finished": 1}))
    return ("\n".join(lines) + "\n").encode("utf-8")


def render_json_array(sc: Scene, evs) -> bytes:
    def pretty(v, ind):
        if isinstance(v, dict):
            if not v:
                return "{\n\n" + " " * ind + "}"
            items = [" " * (ind + 2) + json.dumps(k) + " : " + pretty(x, ind + 2) for k, x in v.items()]
            return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
        if isinstance(v, list):
            return "[\n" + ",\n".join(" " * (ind + 2) + pretty(x, ind + 2) for x in v) + "\n" + " " * ind + "]"
        return json.dumps(v, ensure_ascii=False).replace("/", "\\/")

    recs = []
    for ev in evs:
        rec = os_record(sc, ev, first="timestamp")
        body = pretty(rec, 0)
        recs.append(body[2:-2])  # strip "{\n" and "\n}" so that records join as `log` prints them
    return ("[{\n" + "\n},{\n".join(recs) + "\n}]\n").encode("utf-8")


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


# --------------------------------------------------------------------------
# Scenarios: one function per sample log
# --------------------------------------------------------------------------

# as `log` echoes `--predicate 'NOT subsystem BEGINSWITH "com.apple.network"'`
PREDICATE = 'NOT subsystem BEGINSWITH "com.apple.network"'

SAMPLES = []  # (file name, device key, container, summary, expected findings, bytes)


def sample(fname, dev_key, container, summary, expect, data, lines):
    SAMPLES.append(dict(file=fname, dev=DEVICES[dev_key], container=container, summary=summary,
                        expect=expect, data=data, lines=lines))


def log_ios7():
    """idevicesyslog, iOS 7.1.2, raw syslog_relay stream: NUL-separated records, vis escapes."""
    dev, day = DEVICES["7"], "2026-11-20"
    sc = Scene(dev, "ios7")
    legacy, weather = APPS["legacy"], APPS["weather"]
    t0, t1 = sc.T(day, "09:00:04"), sc.T(day, "12:40:00")
    sc.raw(sc.T(day, "09:00:00"), "[connected]")
    sc.noise(t0, t1, 52)

    r = Run(sc, legacy, sc.T(day, "09:12:03"))
    r.launch().register()
    r.api("startUpdatingLocation")  # iOS 7: no request methods, the first start prompts
    r.prompt("Always", "Always,Deny").answer("Always").changed("AuthorizedAlways")
    r.authcb("AuthorizedAlways").trans("updatingLocation", 0, 1)
    r.deliver(6, every=1.0, hacc=[5, 10, 10, 16])
    r.log("Visited place: Caf\u00e9 de l'Homme\n    address: 17 Place du Trocad\u00e9ro, 75016 Paris\n"
          "    category: restaurant \\ bar\n    dwell: 12 min", typ="Warning")
    r.wait(20).state("BackgroundRunning")
    r.deliver(5, every=2.0, hacc=[10, 16, 30])
    r.wait(4).state("ForegroundRunning")
    r.deliver(2, hacc=5)
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    r.wait(30).state("BackgroundRunning").wait(10).state("BackgroundTaskSuspended")

    w = Run(sc, weather, sc.T(day, "10:40:11"))
    w.launch().register()
    w.api("startUpdatingLocation")
    w.prompt("Always", "Always,Deny").answer("Deny").changed("Denied")
    w.authcb("Denied")
    w.wait(3).deliver(2, every=1.0, hacc=65)  # anomaly: deliveries while Denied
    w.log("Forecast refresh failed: location unavailable, using last city", typ="Error")
    w.wait(40).state("BackgroundRunning").wait(5).state("BackgroundTaskSuspended")
    w.wait(300).terminate()

    t = sc.T(day, "11:02:17")
    msg = "mDNS_Register_internal: Registering QA-Lab\\032AirPlay._airplay._tcp.local. (SRV) port 7000"
    sc.add(t, "mDNSResponder", msg)
    sc.add(t + timedelta(seconds=1), "mDNSResponder", msg)
    sc.raw(t + timedelta(seconds=2), "--- last message repeated 2 time ---")
    sc.add(sc.T(day, "11:30:00"), "wifid", "WiFi:[816863400.112]: Joined network \"Caf\u00e9 Lumi\u00e8re\" (channel 36)",
           type="Warning")
    sc.raw(sc.T(day, "12:40:02"), "[disconnected]")
    evs = sc.sorted()
    data = render_idevicesyslog(evs, dev, nul=True)
    sample(f"{dev.name}-{day}.log.gz", "7", "idevicesyslog (raw, NUL-separated)",
           "Legacy asks at `startUpdatingLocation` (iOS 7 has no request methods), gets Always, "
           "delivers in foreground and background (fine on 7). WeatherNow is denied and still gets 2 deliveries. "
           "Records end with `\\n\\0`; one 4-line record (continuation lines) with `caf\\M-C\\M-)` and `\\134`; "
           "`[connected]`, `--- last message repeated 2 time ---`, `[disconnected]`.",
           ["delivery-without-authorization (WeatherNow, 2 deliveries after Denied)"], gz(data), data.count(b"\n"))


def log_ios8():
    """idevicesyslog, iOS 8.4: Always on 8, repeated upgrade prompt, an empty device-name field."""
    dev, day = DEVICES["8"], "2026-11-20"
    sc = Scene(dev, "ios8")
    runner, legacy, weather = APPS["runner"], APPS["legacy"], APPS["weather"]
    sc.noise(sc.T(day, "08:55:00"), sc.T(day, "17:10:00"), 70)
    sc.raw(sc.T(day, "08:55:00"), "[connected]")

    r = Run(sc, runner, sc.T(day, "09:30:12"))
    r.launch().register().api("requestAlwaysAuthorization")
    r.prompt("Always", "Always,Deny").answer("Always").changed("AuthorizedAlways").authcb("AuthorizedAlways")
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1)
    r.deliver(5, hacc=[5, 5, 10])
    r.wait(5).state("BackgroundRunning")
    r.deliver(6, every=3.0, hacc=[5, 10])  # Always + capability on iOS 8: no blue bar due
    r.wait(10).state("ForegroundRunning").deliver(2)
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    r.wait(60).terminate()
    # a locationd line whose device-name field is empty (two spaces)
    ev = sc.locd(r.tick(), jm("#CLIUA Marking change", clientKey=runner.client_key, reason="Process exited",
                               AssertionLevel="kCLClientInUseLevelNotInUse", coming=0))
    ev.host = ""

    l1 = Run(sc, legacy, sc.T(day, "11:00:40"))
    l1.launch().register().api("requestWhenInUseAuthorization")
    l1.prompt("WhenInUse", "WhenInUse,Deny").answer("WhenInUse").changed("AuthorizedWhenInUse").authcb("AuthorizedWhenInUse")
    l1.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(4, hacc=10)
    l1.wait(8).api("requestAlwaysAuthorization")
    l1.prompt("AlwaysUpgrade", "Always,KeepWhenInUse").answer("KeepWhenInUse")
    l1.deliver(2, hacc=10).api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    l1.wait(20).terminate()

    l2 = Run(sc, legacy, sc.T(day, "14:20:05"))
    l2.launch().register().authcb("AuthorizedWhenInUse").api("requestAlwaysAuthorization")
    l2.prompt("AlwaysUpgrade", "Always,KeepWhenInUse").answer("KeepWhenInUse")  # anomaly: second upgrade prompt
    l2.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=10)
    l2.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(15).terminate()

    w = Run(sc, weather, sc.T(day, "16:02:30"))
    w.launch().register().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "WhenInUse,Deny").answer("WhenInUse").changed("AuthorizedWhenInUse").authcb("AuthorizedWhenInUse")
    w.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=[30, 65])
    w.api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    w.wait(12).state("BackgroundRunning").wait(10).state("BackgroundTaskSuspended")
    sc.raw(sc.T(day, "17:10:05"), "[disconnected]")
    data = render_idevicesyslog(sc.sorted(), dev)
    sample(f"{dev.name}-{day}.log.gz", "8", "idevicesyslog",
           "Runner: Always at the first prompt, background deliveries without a blue bar (correct on 8). "
           "Legacy: WhenInUse, one upgrade prompt declined (KeepWhenInUse), then a second upgrade prompt in a later "
           "session. WeatherNow: WhenInUse, stops in background. One locationd line with an empty device name (two spaces).",
           ["repeated-always-prompt (Legacy, 14:20 session)"], gz(data), data.count(b"\n"))


def log_ios10():
    """idevicesyslog, iOS 10.3.3: blue bar under WhenInUse, Tracker's background-flag crash."""
    dev, day = DEVICES["10"], "2026-11-20"
    sc = Scene(dev, "ios10")
    runner, tracker, weather = APPS["runner"], APPS["tracker"], APPS["weather"]
    sc.noise(sc.T(day, "08:30:00"), sc.T(day, "13:30:00"), 80)

    r = Run(sc, runner, sc.T(day, "08:45:10"))
    r.launch().register().api("requestWhenInUseAuthorization")
    r.prompt("WhenInUse", "WhenInUse,Deny").answer("WhenInUse").changed("AuthorizedWhenInUse").authcb("AuthorizedWhenInUse")
    r.trans("allowsBackgroundLocationUpdates", 0, 1)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(5, hacc=[5, 10])
    r.wait(3).state("BackgroundRunning").bluebar(1)
    r.deliver(6, every=2.0, hacc=[5, 10])
    r.wait(4).state("ForegroundRunning").bluebar(0).deliver(2)
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(30).terminate()

    k = Run(sc, tracker, sc.T(day, "10:15:02"))
    k.launch().register().api("requestAlwaysAuthorization")
    k.prompt("Always", "Always,Deny").answer("Always").changed("AuthorizedAlways").authcb("AuthorizedAlways")
    k.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=10)
    k.wait(1)
    k.own("*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: "
          "'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)'\n"
          "*** First throw call stack:\n"
          "(0x1849a2d8c 0x183b5c5ec 0x1849a2c5c 0x185392bb0 0x18b3e61d0 0x10009f2a8 0x10009e7f4 0x18a8d9ce0 "
          "0x18a8d9764 0x18a8b5e4c 0x18aa4b5f0 0x19a1c0b30 0x18494ea6c 0x18494c6a4 0x18487a384 0x18629b198 "
          "0x18a7f5ab4 0x1000a14cc 0x183ce959c)", lib="CoreFoundation", typ="Error", sub="", cat="")
    k.own("libc++abi.dylib: terminating with uncaught exception of type NSException", lib="libc++abi.dylib",
          typ="Error", sub="", cat="")
    sc.add(k.tick(), "ReportCrash", f"Formulating report for corpse[{k.pid}] Tracker", type="Default")
    sc.sb(k.tick(), f"Application 'UIKitApplication:com.example.tracker[0x{sc.rng.getrandbits(16):x}]' crashed.")
    k.terminate()

    w = Run(sc, weather, sc.T(day, "13:00:20"))
    w.launch().register().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "WhenInUse,Deny").answer("WhenInUse").changed("AuthorizedWhenInUse").authcb("AuthorizedWhenInUse")
    w.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(4, hacc=[30, 65])
    w.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(20).terminate()
    data = render_idevicesyslog(sc.sorted(), dev)
    sample(f"{dev.name}-{day}.log.gz", "10", "idevicesyslog",
           "Runner: WhenInUse with background flag and capability, blue bar shown in background (correct). "
           "Tracker (no `location` background mode): Always, then the `CLClientIsBackgroundable` crash "
           "(a 3-line record: exception, `*** First throw call stack:`, addresses), ReportCrash, SpringBoard crash line, "
           "Terminated. WeatherNow: WhenInUse in foreground.",
           ["background-flag-without-capability (Tracker, iOS 10; evidence: the crash line)"], gz(data), data.count(b"\n"))


def log_ios12():
    """idevicesyslog, iOS 12.5.7, two gzip members (morning / afternoon)."""
    dev, day = DEVICES["12"], "2026-11-20"
    sc = Scene(dev, "ios12")
    runner, legacy, weather = APPS["runner"], APPS["legacy"], APPS["weather"]
    sc.noise(sc.T(day, "08:00:00"), sc.T(day, "11:55:00"), 55)
    sc.noise(sc.T(day, "13:00:00"), sc.T(day, "18:00:00"), 60)
    noon = sc.T(day, "12:00:00")

    r = Run(sc, runner, sc.T(day, "08:20:31"))
    r.launch().register().api("requestAlwaysAuthorization")
    r.prompt("Always", "WhenInUse,Always,Deny").answer("WhenInUse").changed("AuthorizedWhenInUse").authcb("AuthorizedWhenInUse")
    r.trans("allowsBackgroundLocationUpdates", 0, 1)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(4)
    r.wait(3).state("BackgroundRunning").bluebar(1).deliver(5, every=2.0)
    r.wait(3).state("ForegroundRunning").bluebar(0)
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(40).terminate()

    lg = Run(sc, legacy, sc.T(day, "09:41:00"))
    lg.launch().register().api("requestAlwaysAuthorization")
    lg.own("This app has attempted to access privacy-sensitive data without a usage description. The app's "
           "Info.plist must contain both \u201cNSLocationAlwaysAndWhenInUseUsageDescription\u201d and "
           "\u201cNSLocationWhenInUseUsageDescription\u201d keys with string values explaining to the user how "
           "the app uses this data", typ="Error", sub="", cat="")
    lg.wait(25).state("BackgroundRunning").wait(8).state("BackgroundTaskSuspended")

    w = Run(sc, weather, sc.T(day, "10:30:09"))
    w.launch().register().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "WhenInUse,Deny").answer("WhenInUse").changed("AuthorizedWhenInUse").authcb("AuthorizedWhenInUse")
    w.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=[30, 65])
    w.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(15).terminate()

    r2 = Run(sc, runner, sc.T(day, "14:05:44"))
    r2.launch().register().authcb("AuthorizedWhenInUse").trans("allowsBackgroundLocationUpdates", 0, 1)
    r2.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3)
    r2.wait(2).state("BackgroundRunning")
    r2.deliver(6, every=2.0)  # anomaly: background under WhenInUse, no #BackgroundIndicator line
    r2.api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    r2.api("startMonitoringSignificantLocationChanges").wait(6).state("BackgroundTaskSuspended")
    r2.wait(120).terminate()

    r3 = Run(sc, runner, sc.T(day, "16:47:02"))
    r3.relaunch_for("SignificantLocationChange")  # anomaly: relaunch while only WhenInUse
    r3.register().authcb("AuthorizedWhenInUse").deliver(2, every=1.0, hacc=[65, 100])
    r3.wait(9).state("BackgroundTaskSuspended")
    evs = sc.sorted()
    am = [e for e in evs if e.t < noon]
    pm = [e for e in evs if e.t >= noon]
    d1, d2 = render_idevicesyslog(am, dev), render_idevicesyslog(pm, dev)
    sample(f"{dev.name}-{day}.log.gz", "12", "idevicesyslog, **two gzip members** (before / after 12:00)",
           "Morning: Runner WhenInUse on the 3-button prompt, background with blue bar (correct); Legacy "
           "requestAlways with only the old Always key: the real missing-key message (curly quotes vis-escaped "
           "`\\M-b\\M^@\\M^\\`), no prompt; WeatherNow WhenInUse. Afternoon: Runner in background under WhenInUse "
           "with no blue bar, then a relaunch for SignificantLocationChange while only WhenInUse.",
           ["missing-usage-description (Legacy, Always on 12)", "deprecated-usage-key (Legacy, 12): v2 reports it as missing-usage-description only (one cause, one finding)",
            "missing-blue-bar (Runner, 14:05 session)",
            "relaunch-without-always (Runner, 16:47; its 2 background deliveries come from the significant-change "
            "relaunch, also with no blue bar)"],
           gz(d1) + gz(d2), (d1 + d2).count(b"\n"))


def log_ios13():
    """idevicesyslog, iOS 13.7: Allow Once persisting, provisional Always, a line without device name."""
    dev, day = DEVICES["13"], "2026-11-20"
    sc = Scene(dev, "ios13")
    runner, weather = APPS["runner"], APPS["weather"]
    sc.raw(sc.T(day, "08:58:00"), f"[connected:{dev.udid}]")
    sc.noise(sc.T(day, "08:58:01"), sc.T(day, "15:30:00"), 90)

    w = Run(sc, weather, sc.T(day, "09:05:16"))
    w.launch().register().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
    w.changed("AuthorizedWhenInUse", temporary=1).authcb("AuthorizedWhenInUse")
    w.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(4, hacc=[10, 30])
    w.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(30).terminate()

    w2 = Run(sc, weather, sc.T(day, "11:30:40"))
    w2.launch().register().authcb("AuthorizedWhenInUse")  # anomaly: Allow Once should not survive the relaunch
    w2.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(5, hacc=[10, 30])
    w2.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(20)
    ev = w2.terminate().sc.evs[-1]
    ev.host = MISSING  # newer idevicesyslog: no device-name field

    r = Run(sc, runner, sc.T(day, "14:00:03"))
    r.launch().register().api("requestAlwaysAuthorization")
    r.prompt("Always", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    r.changed("AuthorizedAlways", provisional=1).authcb("AuthorizedAlways")
    r.trans("allowsBackgroundLocationUpdates", 0, 1).trans("showsBackgroundLocationIndicator", 0, 1)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3)
    r.api("startMonitoringForRegion:", region=Raw("<mask.hash: 'Qm9yZGVhdXhEZXBvdA7x2k=='>"))
    r.sys(jm("#fence Region state change", clientKey=runner.client_key,
             region=Raw("<mask.hash: 'Qm9yZGVhdXhEZXBvdA7x2k=='>"), state="Inside"), cat="Core")
    r.wait(2).state("BackgroundRunning").bluebar(1).deliver(4, every=2.0)  # provisional Always counts as WhenInUse
    r.prompt("AlwaysUpgrade", "Always,KeepWhenInUse").answer("Always").changed("AuthorizedAlways")
    r.authcb("AuthorizedAlways").bluebar(0)  # now real Always + indicator flag YES: still due on 13
    r.deliver(2, every=2.0)
    r.wait(3).state("ForegroundRunning").api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    r.wait(25).terminate()
    sc.raw(sc.T(day, "15:30:02"), f"[disconnected:{dev.udid}]")
    data = render_idevicesyslog(sc.sorted(), dev)
    sample(f"{dev.name}-{day}.log.gz", "13", "idevicesyslog (libimobiledevice 1.3 style `[connected:UDID]`)",
           "WeatherNow: Allow Once, terminated; relaunched at 11:30 with no prompt and still AuthorizedWhenInUse, "
           "5 deliveries. Its Terminated line has no device-name field. Runner: requestAlways -> WhenInUse = "
           "provisional Always, background with blue bar, region monitoring (`<mask.hash: '...'>`), then the system's "
           "upgrade prompt -> Always; the blue bar is hidden while still in background with the indicator flag YES.",
           ["allow-once-persisting (WeatherNow, 11:30 session)", "missing-blue-bar (Runner, 2 background deliveries "
            "after the upgrade to Always with showsBackgroundLocationIndicator YES and visible 0)"],
           gz(data), data.count(b"\n"))


def log_ios14_newyear():
    """idevicesyslog, iOS 14.8, Dec 31 23:41 -> Jan 1 00:24; file date 2027-01-01."""
    dev = DEVICES["14"]
    d0, d1 = "2026-12-31", "2027-01-01"
    sc = Scene(dev, "ios14ny")
    runner = APPS["runner"]
    sc.noise(sc.T(d0, "23:40:00"), sc.T(d0, "23:59:59"), 45)
    sc.noise(sc.T(d1, "00:00:00"), sc.T(d1, "00:25:00"), 45)
    sc.add(sc.T(d0, "23:59:59"), "SpringBoard", "Clock tick: minute changed, 23:59 -> 00:00", sub="com.apple.SpringBoard", cat="Common")
    sc.add(sc.T(d1, "00:00:00"), "CommCenter", "#I SMS received, class 0, length 104", sub="com.apple.CommCenter", cat="sms")

    r = Run(sc, runner, sc.T(d0, "23:41:07"))
    r.launch().register().authcb("AuthorizedWhenInUse", limits=1)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, every=2.0, hacc=[1414, 2000])
    r.wait(5).api("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey="Navigation")
    r.prompt("TemporaryFullAccuracy", "Allow,Deny").answer("Allow")
    r.accuracy("Full", temporary=1, purposeKey="Navigation").authcb("AuthorizedWhenInUse", limits=0)
    r.at(d0, "23:59:52").deliver(8, every=2.0, hacc=[5, 5, 10])  # crosses midnight
    r.wait(30).api("stopUpdatingLocation").trans("updatingLocation", 1, 0)
    r.at(d1, "00:08:30").terminate()

    r2 = Run(sc, runner, sc.T(d1, "00:15:12"))
    r2.launch().register().accuracy("Reduced", temporary=0, reason="Expired").authcb("AuthorizedWhenInUse", limits=1)
    r2.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(4, every=2.0, hacc=[1414, 2000, 3000])
    r2.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).at(d1, "00:22:40").terminate()
    data = render_idevicesyslog(sc.sorted(), dev)
    sample(f"{dev.name}-{d1}.log.gz", "14", "idevicesyslog, **crosses New Year**",
           "Lines from `Dec 31 23:40` to `Jan  1 00:25` (no year in the lines; the file date is 2027-01-01, so the "
           "December lines are 2026). Runner, reduced accuracy, gets a temporary full-accuracy grant (Navigation) "
           "and delivers precise fixes across midnight; relaunched at 00:15, the grant has expired (`reason:Expired`) "
           "and fixes are reduced again. Well-behaved.",
           [], gz(data), data.count(b"\n"))


def log_ios14_syslog():
    """`log show --style syslog`, iOS 14.8: temporary precise persisting, purpose key not in the dictionary."""
    dev, day = DEVICES["14"], "2026-11-20"
    sc = Scene(dev, "ios14sys")
    runner, weather = APPS["runner"], APPS["weather"]
    sc.noise(sc.T(day, "09:50:00"), sc.T(day, "15:30:00"), 70)

    r = Run(sc, runner, sc.T(day, "10:00:21"))
    r.launch().register().api("requestWhenInUseAuthorization")
    r.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    r.changed("AuthorizedWhenInUse").accuracy("Reduced").authcb("AuthorizedWhenInUse", limits=1)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, every=2.0, hacc=[1414, 3000])
    r.api("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey="Delivery")
    r.prompt("TemporaryFullAccuracy", "Allow,Deny").answer("Allow")
    r.accuracy("Full", temporary=1, purposeKey="Delivery").authcb("AuthorizedWhenInUse", limits=0)
    r.deliver(4, every=2.0, hacc=[5, 10])
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(20).terminate()

    r2 = Run(sc, runner, sc.T(day, "13:10:02"))
    r2.launch().register().authcb("AuthorizedWhenInUse", limits=0)  # anomaly: temporary grant survived
    r2.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(4, every=2.0, hacc=[5, 8])
    r2.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(10).terminate()

    w = Run(sc, weather, sc.T(day, "15:00:10"))
    w.launch().register().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    w.changed("AuthorizedWhenInUse").accuracy("Reduced").authcb("AuthorizedWhenInUse", limits=1)
    w.api("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey="Radar")
    w.prompt("TemporaryFullAccuracy", "Allow,Deny").answer("Allow")
    w.accuracy("Full", temporary=1, purposeKey="Radar").authcb("AuthorizedWhenInUse", limits=0)  # anomaly: no dictionary
    w.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=[10, 16])
    w.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(10).terminate()
    data = render_logshow_syslog(sc, sc.sorted(), PREDICATE)
    sample(f"{dev.name}-{day}.log", "14", "`log show --style syslog`",
           "Runner: WhenInUse + reduced accuracy (NSLocationDefaultAccuracyReduced), temporary full accuracy "
           "(Delivery), terminated; relaunched at 13:10 still full (`limitsPrecision:0`) with precise fixes and no "
           "new grant. WeatherNow: gets a temporary full-accuracy grant for purpose key `Radar` although it has no "
           "NSLocationTemporaryUsageDescriptionDictionary.",
           ["temporary-precise-persisting (Runner, 13:10 session)",
            "temporary-precise-without-authorization (WeatherNow, purpose key `Radar`)"], data, data.count(b"\n"))


def log_ios17_default():
    """`log show` default style, iOS 17.5.1: precise delivery under reduced accuracy, <private> locations."""
    dev, day = DEVICES["17"], "2026-11-20"
    sc = Scene(dev, "ios17def")
    runner, legacy, tracker = APPS["runner"], APPS["legacy"], APPS["tracker"]
    sc.noise(sc.T(day, "08:25:00"), sc.T(day, "12:00:00"), 65)

    r = Run(sc, runner, sc.T(day, "08:30:12"))
    r.launch()
    sc.add(r.tick(), "locationd", "CLLocationManager", type="Activity", lib="CoreLocation")
    r.register().api("requestWhenInUseAuthorization")
    r.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    r.changed("AuthorizedWhenInUse").accuracy("Reduced").authcb("AuthorizedWhenInUse", limits=1)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1)
    r.deliver(3, every=2.0, hacc=[1414, 2000])
    r.deliver(2, every=2.0, private=True)
    r.deliver(1, hacc=5)  # anomaly: precise fix while reduced, no temporary grant
    r.deliver(2, every=2.0, hacc=[1414, 3000])
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(40).terminate()

    lg = Run(sc, legacy, sc.T(day, "09:40:33"))
    lg.launch().register().api("requestWhenInUseAuthorization")
    lg.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    lg.changed("AuthorizedWhenInUse").accuracy("Full").authcb("AuthorizedWhenInUse", limits=0)
    lg.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=[5, 10])
    lg.api("requestAlwaysAuthorization")
    lg.own("This app has attempted to access privacy-sensitive data without a usage description. The app's "
           "Info.plist must contain both \u201cNSLocationAlwaysAndWhenInUseUsageDescription\u201d and "
           "\u201cNSLocationWhenInUseUsageDescription\u201d keys with string values explaining to the user how "
           "the app uses this data", typ="Fault", sub="com.apple.CoreLocation", cat="Client")
    lg.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(15).terminate()

    k = Run(sc, tracker, sc.T(day, "11:02:50"))
    k.launch().register().api("requestWhenInUseAuthorization")
    k.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    k.changed("AuthorizedWhenInUse").accuracy("Full").authcb("AuthorizedWhenInUse", limits=0)
    k.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(3, hacc=[5, 10])
    k.log("Trip summary:\n    distance: 0.31 km\n    duration: 00:04:12", lib=None)
    k.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(10).terminate()

    # iOS 17: Runner with CLLocationUpdate.liveUpdates and a CLBackgroundActivitySession made in the
    # foreground: in the background a minute later it is still in use (rules model v2).
    r2 = Run(sc, runner, sc.T(day, "13:10:05"))
    r2.launch().register().authcb("AuthorizedWhenInUse", limits=1)
    r2.own(jm("CLBackgroundActivitySession", event="activity", _cmd="backgroundActivitySession", self_="0x2810a4c60"))
    r2.own(jm("CLLocationUpdate", event="activity", _cmd="liveUpdates", self_=r2.mgr))
    for n in range(5):
        if n == 2:
            r2.state("BackgroundRunning").wait(60)
        r2.wait(20)
        r2.own(jm("#CLLocationUpdate yielding update", self_=r2.mgr,
                           location={"lat": round(r2.lat + n * 0.0002, 6), "lon": round(r2.lon - n * 0.0003, 6),
                                     "horizontalAccuracy": 2000, "timestamp": 815832000.0 + n},
                           isStationary=0))
    r2.state("ForegroundRunning")
    r2.own(jm("CLLocationUpdate", event="activity", _cmd="stop", self_=r2.mgr))
    r2.own(jm("CLBackgroundActivitySession", event="activity", _cmd="invalidate", self_="0x2810a4c60"))
    r2.wait(30).terminate()
    data = render_logshow_default(sc, sc.sorted(), PREDICATE)
    sample(f"{dev.name}-{day}.log", "17", "`log show` default style",
           "Runner: WhenInUse with reduced accuracy; fixes at 1414-3000 m, two `\"location\":<private>`, and one "
           "fix at horizontalAccuracy 5 with no temporary grant. Legacy (NSLocationDefaultAccuracyReduced is the "
           "string \"YES\"): WhenInUse, full accuracy, requestAlways refused with the missing-key message (Fault). "
           "Tracker: WhenInUse, foreground only; one 3-line record. Runner at 13:10 (iOS 17 APIs): "
           "`CLLocationUpdate.liveUpdates` with a `CLBackgroundActivitySession` made in the foreground, three live "
           "updates in the background a minute later, in use through the session. An `Activity` line; banner, header and summary lines.",
           ["precise-delivery-under-reduced-accuracy (Runner, 1 delivery)", "invalid-default-accuracy-reduced (Legacy)",
            "missing-usage-description (Legacy, Always on 17; v2: not deprecated-usage-key too)"], data, data.count(b"\n"))


def log_ios13_json():
    """`log show --style json`, iOS 13.7: direct Always grant; Allow Once done right."""
    dev, day = DEVICES["13"], "2026-11-21"
    sc = Scene(dev, "ios13json")
    tracker, weather = APPS["tracker"], APPS["weather"]
    sc.noise(sc.T(day, "10:00:00"), sc.T(day, "11:00:00"), 12)

    k = Run(sc, tracker, sc.T(day, "10:03:33"))
    k.launch().api("requestAlwaysAuthorization")
    k.prompt("Always", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    k.changed("AuthorizedAlways", provisional=0).authcb("AuthorizedAlways")  # anomaly: permanent Always at once
    k.api("startUpdatingLocation").deliver(2, hacc=10)
    k.api("stopUpdatingLocation").wait(5).terminate()

    w = Run(sc, weather, sc.T(day, "10:20:05"))
    w.launch().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
    w.changed("AuthorizedWhenInUse", temporary=1).authcb("AuthorizedWhenInUse")
    w.api("startUpdatingLocation").deliver(2, hacc=30).wait(10).terminate()
    w2 = Run(sc, weather, sc.T(day, "10:41:55"))
    w2.launch().authcb("NotDetermined").api("requestWhenInUseAuthorization")
    w2.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
    w2.changed("AuthorizedWhenInUse", temporary=1).authcb("AuthorizedWhenInUse")
    w2.api("startUpdatingLocation").deliver(2, hacc=30).wait(10).terminate()
    sc.add(sc.T(day, "10:41:50"), "locationd", "CLLocationManager", type="Activity", lib="CoreLocation")
    evs = sc.sorted()
    data = render_json_array(sc, evs)
    sample(f"{dev.name}-{day}.json", "13", "`log show --style json` (one pretty-printed array)",
           "Tracker: requestAlways, the user picks WhenInUse, but the daemon records a permanent AuthorizedAlways "
           "(`provisional:0`). WeatherNow: Allow Once, terminated, relaunched as NotDetermined and prompted again "
           "(correct). One `activityCreateEvent` without messageType. Slashes escaped as `\\/`.",
           ["direct-always-grant (Tracker)"], data, len(evs))


def log_ios18_ndjson():
    """`log show --style ndjson`, iOS 18.1, New York: upgrade to Always, Visits relaunch, automatic pause."""
    dev, day = DEVICES["18"], "2026-11-20"
    sc = Scene(dev, "ios18nd")
    runner, weather, tracker = APPS["runner"], APPS["weather"], APPS["tracker"]
    sc.noise(sc.T(day, "07:55:00"), sc.T(day, "18:00:00"), 28)

    r = Run(sc, runner, sc.T(day, "08:00:04"))
    r.launch()
    sc.add(r.tick(), "Runner", "CLLocationManager", pid=r.pid, type="Activity", lib="CoreLocation")
    r.register().api("requestWhenInUseAuthorization")
    r.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    r.changed("AuthorizedWhenInUse").accuracy("Reduced").authcb("AuthorizedWhenInUse", limits=1)
    # iOS 18: Runner declares the authorization it needs with a CLServiceSession (rules model v2).
    r.wait(3)
    r.own(jm("CLServiceSession", event="activity", _cmd="sessionRequiringAuthorization:", authorization="Always",
                     self_=r.mgr))
    r.api("requestAlwaysAuthorization")
    r.prompt("AlwaysUpgrade", "Always,KeepWhenInUse").answer("Always").changed("AuthorizedAlways")
    r.authcb("AuthorizedAlways", limits=1)
    r.trans("allowsBackgroundLocationUpdates", 0, 1).api("startMonitoringVisits")
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(2, every=2.0, hacc=[1414, 2000])
    r.wait(2).state("BackgroundRunning").deliver(3, every=3.0, hacc=[1414, 2000])  # Always, indicator NO: no bar due
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(5).state("BackgroundTaskSuspended")
    r.wait(600).terminate()
    r2 = Run(sc, runner, sc.T(day, "12:31:40"))
    r2.relaunch_for("Visits")
    r2.register().authcb("AuthorizedAlways", limits=1).deliver(1, hacc=2000)
    r2.wait(8).state("BackgroundTaskSuspended")

    w = Run(sc, weather, sc.T(day, "09:15:00"))
    w.launch().register().api("requestWhenInUseAuthorization")
    w.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("Deny").changed("Denied").authcb("Denied")
    w.wait(20).terminate()
    w.at(day, "09:40:10").changed("AuthorizedWhenInUse", reason="Settings")
    w2 = Run(sc, weather, sc.T(day, "09:41:00"))
    w2.launch().register().authcb("AuthorizedWhenInUse", limits=0)
    w2.api("startUpdatingLocation").deliver(2, hacc=[10, 30]).api("stopUpdatingLocation").wait(8).terminate()

    k = Run(sc, tracker, sc.T(day, "17:02:00"))
    k.launch().register().api("requestWhenInUseAuthorization")
    k.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    k.changed("AuthorizedWhenInUse").accuracy("Full").authcb("AuthorizedWhenInUse", limits=0)
    k.trans("pausesLocationUpdatesAutomatically", 0, 1)
    k.api("startUpdatingLocation").trans("updatingLocation", 0, 1).deliver(2, every=2.0, hacc=5)
    k.trans("paused", 0, 1).deliver(2, every=5.0, hacc=10, speed=-1)  # anomaly: deliveries while paused
    k.trans("paused", 1, 0).deliver(1, hacc=5)
    k.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(5).terminate()
    evs = sc.sorted()
    data = render_ndjson(sc, evs)
    sample(f"{dev.name}-{day}.ndjson.gz", "18", "`log show --style ndjson`, gzipped",
           "Device in New York (`-0500`, coordinates around Central Park). Runner: WhenInUse (reduced), upgrade "
           "prompt -> Always, Visits, background deliveries with no blue bar (correct: indicator flag NO); relaunched "
           "for Visits at 12:31 (correct under Always). WeatherNow: Denied, then WhenInUse from Settings. Tracker: "
           "automatic pause with 2 deliveries while paused. One `activityCreateEvent` without messageType; "
           "trailer `{\"count\":N,\"finished\":1}`.",
           ["delivery-while-paused (Tracker)"], gz(data), data.count(b"\n"))


def log_ios18_stream():
    """`log stream --style ndjson`, iOS 18.1: banner, no trailer; RegionMonitoring and Standard relaunches."""
    dev, day = DEVICES["18"], "2026-11-21"
    sc = Scene(dev, "ios18stream")
    runner, tracker = APPS["runner"], APPS["tracker"]
    sc.noise(sc.T(day, "07:10:00"), sc.T(day, "07:40:00"), 36)
    r = Run(sc, runner, sc.T(day, "07:12:30"))
    r.relaunch_for("RegionMonitoring")
    r.sys(jm("#fence Region state change", clientKey=runner.client_key,
             region=Raw("<mask.hash: 'SG9tZVJlZ2lvbjE0Mg/8Zw=='>"), state="Outside"), cat="Core")
    r.register().authcb("AuthorizedAlways", limits=1).deliver(2, every=2.0, hacc=[1414, 2000])
    r.wait(9).state("BackgroundTaskSuspended")
    k = Run(sc, tracker, sc.T(day, "07:30:02"))
    k.relaunch_for("Standard")  # anomaly: standard location never relaunches an app
    k.register().authcb("AuthorizedWhenInUse", limits=0).deliver(3, every=1.0, hacc=5)
    k.wait(6).state("BackgroundTaskSuspended")
    evs = sc.sorted()
    data = render_ndjson(sc, evs, banner=PREDICATE, trailer=False)
    sample(f"{dev.name}-{day}.ndjson.gz", "18", "`log stream --style ndjson`, gzipped",
           "Starts with the `Filtering the log data using ...` banner; no trailer (the stream was interrupted). "
           "Runner relaunched for RegionMonitoring under Always (correct). Tracker relaunched for `Standard` "
           "(a service that never relaunches) while WhenInUse.",
           ["relaunch-without-always (Tracker, service Standard)"], gz(data), data.count(b"\n"))


def log_privacy_report():
    """App Privacy Report export (iOS 15+ shape), device qa-iphone14pro-17."""
    dev = DEVICES["17"]
    tz = ZoneInfo(dev.tz)
    rng = random.Random("privacy")

    def ts(day, hms, ms):
        y, m, d = (int(x) for x in day.split("-"))
        hh, mi, ss = (int(x) for x in hms.split(":"))
        t = datetime(y, m, d, hh, mi, ss, ms * 1000, tzinfo=tz)
        off = t.strftime("%z")
        return f"{t:%Y-%m-%dT%H:%M:%S}.{ms:03d}{off[:3]}:{off[3:]}"

    def uid():
        h = "%032X" % rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    recs = []

    def access(bundle, cat, b, e, begin=True, end=True):
        i = uid()
        for kind, stamp, keep in (("intervalBegin", b, begin), ("intervalEnd", e, end)):
            if keep:
                recs.append((stamp, json.dumps({"accessor": {"identifier": bundle, "identifierType": "bundleID"},
                                                "category": cat, "identifier": i, "kind": kind, "timeStamp": stamp,
                                                "type": "access"}, separators=(",", ":"))))

    def net(bundle, domain, stamp, first, hits, initiated="AppInitiated"):
        recs.append((stamp, json.dumps({"timeStamp": stamp, "initiatedType": initiated, "context": "", "domain": domain,
                                        "contextVerificationType": 0, "type": "networkActivity", "domainType": 2,
                                        "firstTimeStamp": first, "bundleID": bundle, "domainOwner": "", "hits": hits,
                                        "domainClassification": 1}, separators=(",", ":"))))

    d0, d1 = "2026-11-20", "2026-11-21"
    # the sessions of qa-iphone14pro-17-2026-11-20.log
    access("com.example.runner", "location", ts(d0, "08:30:14", 212), ts(d0, "08:31:17", 930))
    access("com.example.legacy", "location", ts(d0, "09:40:37", 80), ts(d0, "09:41:01", 455))
    access("com.example.tracker", "location", ts(d0, "11:02:54", 301), ts(d0, "11:03:20", 17))
    # later, not in the logs
    access("com.example.runner", "location", ts(d0, "18:12:03", 550), ts(d0, "18:47:41", 102))
    access("com.example.runner", "photos", ts(d0, "18:48:10", 9), ts(d0, "18:48:31", 640))
    access("com.example.weather", "location", ts(d1, "07:30:00", 118), ts(d1, "07:30:04", 906))
    access("com.apple.mobileslideshow", "photos", ts(d1, "07:41:22", 31), ts(d1, "07:41:49", 777))
    access("com.apple.MobileSMS", "contacts", ts(d1, "07:44:02", 613), ts(d1, "07:44:30", 241))
    access("com.apple.Maps", "location", ts(d1, "07:50:12", 444), ts(d1, "07:58:09", 3))
    access("com.example.runner", "location", ts(d1, "07:55:40", 761), None, end=False)  # still open at export
    access("com.apple.weather", "location", ts(d0, "06:10:41", 87), ts(d0, "06:10:43", 120))
    access("com.apple.weather", "location", ts(d0, "12:10:40", 512), ts(d0, "12:10:42", 7))
    access("com.apple.weather", "location", ts(d1, "06:10:39", 641), ts(d1, "06:10:41", 996))
    for bundle, domains in (("com.example.runner", ["api.runner.example.com", "tiles.example.com"]),
                            ("com.example.weather", ["api.weather.example.com", "radar.weather.example.com"]),
                            ("com.example.tracker", ["collect.tracker.example.net"]),
                            ("com.apple.Maps", ["gspe35-ssl.ls.apple.com", "gsp-ssl.ls.apple.com"])):
        for dom in domains:
            a = ts(d0, f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}", rng.randint(0, 999))
            b = ts(d1, f"07:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}", rng.randint(0, 999))
            net(bundle, dom, b, a, rng.randint(1, 60))
    access("com.apple.camera", "camera", ts(d0, "13:02:11", 410), ts(d0, "13:02:40", 95))
    access("com.apple.camera", "microphone", ts(d0, "13:02:12", 3), ts(d0, "13:02:39", 870))
    access("com.apple.MobileSMS", "photos", ts(d0, "19:30:05", 660), ts(d0, "19:30:21", 14))
    access("com.apple.Maps", "location", ts(d0, "17:40:02", 215), ts(d0, "17:52:30", 771))
    access("com.apple.findmy", "location", ts(d0, "20:05:13", 302), ts(d0, "20:05:19", 58))
    access("com.example.tracker", "location", ts(d0, "21:14:40", 990), ts(d0, "21:15:02", 431))
    for bundle, domains in (("com.apple.mobilesafari", ["www.example.org", "cdn.example.net", "fonts.example.com"]),
                            ("com.apple.news", ["news-edge.apple.com", "c.apple.news"]),
                            ("com.apple.mobilemail", ["imap.mail.example.com", "smtp.mail.example.com"])):
        for dom in domains:
            a = ts(d0, f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}", rng.randint(0, 999))
            b = ts(d1, f"07:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}", rng.randint(0, 999))
            net(bundle, dom, b, a, rng.randint(1, 200), "NonAppInitiated" if "mail" in bundle else "AppInitiated")
    net("com.apple.mobilecal", "calendars.icloud.com", ts(d1, "07:20:11", 170), ts(d1, "07:20:11", 170), 1, "NonAppInitiated")
    recs.sort(key=lambda x: x[0])
    data = ("\n".join(r for _, r in recs) + "\n").encode()
    sample(f"{dev.name}-{d1}.ndjson", "17", "App Privacy Report (iOS 15+ `.ndjson`, plain)",
           "Location intervals matching the three sessions of the 2026-11-20 `log show` file (Runner 08:30, Legacy "
           "09:40, Tracker 11:02) plus later ones (Runner, WeatherNow, Maps, Weather); one Runner interval "
           "(2026-11-21 07:55:40) has no end; photos/contacts/camera/microphone intervals and networkActivity "
           "records (skipped).",
           [], data, data.count(b"\n"))


# --------------------------------------------------------------------------
# broken/
# --------------------------------------------------------------------------


def broken_files(out: str) -> list[tuple[str, str]]:
    notes = []
    dev = DEVICES["10"]
    day = "2026-11-19"
    sc = Scene(dev, "broken-trunc")
    sc.noise(sc.T(day, "09:00:00"), sc.T(day, "12:00:00"), 260)
    r = Run(sc, APPS["runner"], sc.T(day, "09:30:00"))
    r.launch().register().authcb("AuthorizedWhenInUse").api("startUpdatingLocation").deliver(40, every=3.0)
    r.wait(5).terminate()
    data = render_idevicesyslog(sc.sorted(), dev)
    full = gzip.compress(data, compresslevel=6, mtime=0)
    cut = len(full) * 55 // 100
    trunc = full[:cut]
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    got = d.decompress(trunc)
    complete = got.count(b"\n")
    name = f"{dev.name}-{day}.log.gz"
    with open(os.path.join(out, name), "wb") as f:
        f.write(trunc)
    with open(os.path.join(out, f"{dev.name}-{day}.ideviceinfo.txt"), "w") as f:
        f.write(dev.ideviceinfo(sc.T(day, "12:00:00")))
    nlines = data.count(b"\n")
    notes.append((name,
                  f"A valid idevicesyslog `.log.gz` ({len(full)} bytes, {nlines} lines, {len(data)} bytes "
                  f"uncompressed) cut at byte {cut}, inside the deflate stream: no end-of-stream block, no CRC/size "
                  f"trailer. Expected: an error naming the file and saying the gzip stream is truncated "
                  f"(unexpected end of input at compressed offset {cut}); no crash. The first {complete} complete "
                  f"lines decompress before the cut (the {complete + 1}th is partial): whether they are kept is the "
                  f"ingest's documented choice, but a re-run must not double them."))

    dev = DEVICES["8"]
    sc = Scene(dev, "broken-mal")
    sc.noise(sc.T(day, "10:00:00"), sc.T(day, "10:30:00"), 30)
    r = Run(sc, APPS["weather"], sc.T(day, "10:10:00"))
    r.launch().register().authcb("AuthorizedWhenInUse").api("startUpdatingLocation").deliver(6, every=2.0, hacc=30)
    r.wait(5).terminate()
    lines = render_idevicesyslog(sc.sorted(), dev).split(b"\n")[:-1]
    good = len(lines)
    loc, wf, wpid = sc.pids["locationd"], sc.pids["wifid"], r.pid
    prev = lines[19].decode()[:15]  # the time of the good line just before the backwards one
    bad = [
        # (insert after good line n, bytes, what)
        (5, f"{lines[4].decode()[:15]} {dev.name} wifid[{wf}] <Warning>: WiFi: joined ".encode() + b"\xff\xfe\xc3( network \x80\x81",
         "invalid UTF-8 bytes (0xFF 0xFE, a broken 2-byte sequence, lone continuation bytes) in a wifid line"),
        (10, b"\x1b[0;32m@@@@ ~~~ garbage \x01\x02\x7f ####################",
         "a garbage line (ANSI colour escape, control bytes, no syslog shape; in idevicesyslog it cannot be "
         "told from a continuation line, so it may be appended to the previous record or reported, but it "
         "must give no event)"),
        (15, f"Nov 31 25:61:99 {dev.name} locationd[{loc}] <Notice>: ".encode()
         + jm("#Authorization changed", bundleId="com.example.weather", status="Denied", reason="Settings",
              provisional=0, temporary=0).encode(),
         "an unparseable timestamp (`Nov 31 25:61:99`) on an otherwise valid `#Authorization changed` line"),
        (20, f"Nov 19 10:01:02 {dev.name} WeatherNow[{wpid}] <Warning>: ".encode()
         + jm("CLLocationManager", event="activity", _cmd="startUpdatingLocation", self_="0x1deadbeef").encode(),
         f"time going backwards: a well-formed WeatherNow API line at `Nov 19 10:01:02` right after a line at `{prev}`"),
        (25, f"{lines[24].decode()[:15]} {dev.name} locationd[{loc}] <Notice>: ".encode()
         + b'{"msg":"#Authorization changed", "bundleId":"com.example.weather", "status":',
         "a truncated JSON-like message (cut after `\"status\":`): it must not become a status change without a status"),
    ]
    out_lines = []
    table = []
    for i, ln in enumerate(lines, 1):
        out_lines.append(ln)
        for n, b, what in bad:
            if n == i:
                out_lines.append(b)
                table.append((len(out_lines), what))
    name = f"{dev.name}-{day}.log"
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"\n".join(out_lines) + b"\n")
    with open(os.path.join(out, f"{dev.name}-{day}.ideviceinfo.txt"), "w") as f:
        f.write(dev.ideviceinfo(sc.T(day, "10:30:00")))
    desc = "; ".join(f"line {n}: {w}" for n, w in table)
    notes.append((name,
                  f"Plain idevicesyslog, {len(out_lines)} lines: {good} good lines with {len(table)} bad ones mixed in "
                  f"({desc}). Expected: the file ingests (exit 0 unless a strict flag says otherwise); the good lines "
                  f"are stored; each bad line is accounted for with its line number (invalid UTF-8 decoded lossily "
                  f"or reported, the unparseable timestamp skipped and counted, the garbage line folded into the "
                  f"previous record or counted, the truncated message counted as malformed or unrecognised); the "
                  f"backwards timestamp is kept as written and flagged, not reordered silently."))
    return notes


# --------------------------------------------------------------------------
# containers/: one sample of each container other collectors write (issue 9)
# --------------------------------------------------------------------------

CONTAINERS = []  # dict(file, dev or None, container, summary, data, lines)

CONSOLE_TYPE = {"Default": "default", "Info": "info", "Debug": "debug", "Error": "error", "Fault": "fault",
                "Warning": "default", "Activity": "default"}


def console_record(ev: Ev, type_column=True, space=False, library=False) -> str:
    """A line as Console.app copies it: [type\t]time(+offset)\tprocess\t[library\t]message (no pid, no date)."""
    off = ev.t.strftime("%z")
    cols = [CONSOLE_TYPE[ev.type]] if type_column else []
    cols += [f"{ev.t:%H:%M:%S}.{ev.t.microsecond:06d}{' ' if space else ''}{off}", ev.proc]
    if library:
        cols.append(ev.lib or ev.proc)
    return "\t".join(cols + [ev.msg])


PYM_LEVEL = {"Default": "NOTICE", "Info": "INFO", "Debug": "DEBUG", "Error": "ERROR", "Fault": "FAULT",
             "Warning": "NOTICE", "Activity": "NOTICE"}


def pym_time(t: datetime) -> datetime:
    """pymobiledevice3 prints the collecting host's naive local time (here the device's zone)."""
    return t.replace(tzinfo=None)


def pymobiledevice3_record(ev: Ev, label=True) -> str:
    """`syslog live`: str(datetime) drops the fraction when it is zero; {image} may be empty."""
    line = f"{pym_time(ev.t)} {ev.proc}{{{ev.lib or ''}}}[{ev.pid}] <{PYM_LEVEL[ev.type]}>: {ev.msg}"
    if label and ev.sub:
        line += f" [{ev.sub}][{ev.cat}]"
    return line


def pymobiledevice3_json(sc: Scene, ev: Ev) -> str:
    ppath = PATHS.get(ev.proc) or app_path(sc, ev.proc) or "/usr/libexec/" + ev.proc
    return json.dumps({
        "pid": ev.pid, "procid": ev.pid, "thread_id": sc.tid(ev.proc, ev.pid), "timestamp": pym_time(ev.t).isoformat(),
        "level": PYM_LEVEL[ev.type], "image_name": LIB_PATHS.get(ev.lib, ppath) if ev.lib else ppath,
        "image_offset": sc.rng.randint(4096, 2000000), "image_uuid": sc.uuid("img" + (ev.lib or ppath)).lower(),
        "process_image_uuid": sc.uuid("img" + ppath).lower(), "filename": ppath,
        "mach_timestamp": int((ev.t - CF_EPOCH).total_seconds() * 24e6) % (1 << 50), "message": ev.msg,
        "label": {"subsystem": ev.sub, "category": ev.cat} if ev.sub else None,
    }, ensure_ascii=False)


def container(fname, dev, kind, summary, data, lines):
    CONTAINERS.append(dict(file=fname, dev=dev, container=kind, summary=summary, data=data, lines=lines))


def runner_session(sc: Scene, app: App, t: datetime, deliveries=4, log_lines=()):
    """A well-behaved foreground session: WhenInUse, full accuracy, updates started and stopped."""
    r = Run(sc, app, t)
    r.launch().register().api("requestWhenInUseAuthorization")
    r.prompt("WhenInUse", "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
    r.changed("AuthorizedWhenInUse").accuracy("Full").authcb("AuthorizedWhenInUse", limits=0)
    r.api("startUpdatingLocation").trans("updatingLocation", 0, 1)
    r.deliver(deliveries, every=20.0, hacc=[5, 8, 12])
    for text in log_lines:
        r.log(text)
    r.api("stopUpdatingLocation").trans("updatingLocation", 1, 0).wait(30).terminate()
    return r


def containers_console():
    dev, day = DEVICES["17"], "2026-11-22"
    sc = Scene(dev, "console17")
    sc.noise(sc.T(day, "23:50:00"), sc.T("2026-11-23", "00:08:00"), 30)
    sc.add(sc.T(day, "23:55:10"), "SpringBoard", "Icon layout:\tpage 1\tcolumns 4")  # tabs inside a message
    runner_session(sc, APPS["runner"], sc.T(day, "23:58:40"), deliveries=6,
                   log_lines=["Run summary:\n    distance: 1.92 km\n    duration: 00:11:05"])
    data = ("\n".join(console_record(ev) for ev in sc.sorted()) + "\n").encode()
    container(f"{dev.name}-{day}-console.log", dev, "console",
              "Console.app copy (type column, offset glued to the time), across midnight: Runner, WhenInUse, "
              "6 deliveries from 23:58 to 00:01; a 3-line app message (continuation lines), a message with tabs. "
              "No pid: app lines are linked by their process name (or samples/apps' executable). The first "
              "line's day is the date in the name.", data, data.count(b"\n"))


def containers_console_xcode():
    dev, day = DEVICES["18"], "2026-11-22"
    sc = Scene(dev, "console18")
    sc.noise(sc.T(day, "10:10:00"), sc.T(day, "10:30:00"), 25)
    runner_session(sc, APPS["weather"], sc.T(day, "10:14:03"), deliveries=3)
    data = ("\n".join(console_record(ev, type_column=False, space=True, library=True) for ev in sc.sorted()) + "\n").encode()
    container(f"{dev.name}-{day}-console-xcode.log", dev, "console",
              "Xcode device-console copy: no type column, a space before the offset, a library column. "
              "WeatherNow, WhenInUse, 3 deliveries.", data, data.count(b"\n"))


def containers_pymobiledevice3():
    dev, day = DEVICES["18"], "2026-11-22"
    sc = Scene(dev, "pym18")
    sc.noise(sc.T(day, "14:00:00"), sc.T(day, "14:20:00"), 25)
    r = runner_session(sc, APPS["runner"], sc.T(day, "14:02:11"), deliveries=4)
    sc.add(r.t.replace(microsecond=0) + timedelta(seconds=2), "backboardd", "HID: idle", sub="com.apple.backboard", cat="hid")
    data = gz(("\n".join(pymobiledevice3_record(ev) for ev in sc.sorted()) + "\n").encode())
    container(f"{dev.name}-{day}-pymobiledevice3.log.gz", dev, "pymobiledevice3",
              "`pymobiledevice3 syslog live --label`, gzipped: host local time without zone (the sidecar's "
              "TimeZone applies), `[subsystem][category]` labels, one line with a whole second (no fraction). "
              "Runner, WhenInUse, 4 deliveries.", data, gzip.decompress(data).count(b"\n"))


def containers_pymobiledevice3_json():
    dev, day = DEVICES["18"], "2026-11-23"
    sc = Scene(dev, "pymjson18")
    sc.noise(sc.T(day, "08:00:00"), sc.T(day, "08:15:00"), 20)
    runner_session(sc, APPS["tracker"], sc.T(day, "08:03:30"), deliveries=3)
    data = ("\n".join(pymobiledevice3_json(sc, ev) for ev in sc.sorted()) + "\n").encode()
    container(f"{dev.name}-{day}-pymobiledevice3.json", dev, "pymobiledevice3-json",
              "`pymobiledevice3 syslog live --format json`: full image paths, labels or null. Tracker, WhenInUse, "
              "3 deliveries.", data, data.count(b"\n"))


def containers_bsd_syslog():
    rng = random.Random("bsd")
    hosts = ["calvisitor-10-105-160-95", "authorMacBook-Pro", "airbears2-10-142-110-255"]
    t = datetime(2026, 11, 22, 9, 0, 32)
    lines = []
    for i in range(40):
        t += timedelta(seconds=rng.randint(5, 400))
        host = hosts[i * len(hosts) // 40]
        head = f"{MON[t.month]} {t.day:>2} {t:%H:%M:%S} {host}"
        if i % 7 == 3:
            lines.append(f"{head} locationd[82]: Location icon should now be in state '{'Active' if i % 2 else 'Inactive'}'")
        elif i % 11 == 5:
            lines.append(f"{head} sandboxd[129] ([{rng.randint(30000, 34000)}]): com.apple.Addres({rng.randint(30000, 34000)}) deny network-outbound /private/var/run/mDNSResponder")
        elif i == 20:
            lines.append(f"{head} --- last message repeated 1 time ---")
        else:
            lines.append(f"{head} kernel[0]: ARPT: {rng.uniform(600000, 700000):.6f}: AirPort_Brcm43xx::syncPowerState: WWEN[enabled]")
    data = ("\r\n".join(lines) + "\r\n").encode()
    container("macbook-2026-11-22-system.log", None, "bsd-syslog",
              "macOS `/var/log/system.log`: CRLF, no level, the host name changes (DHCP), `locationd` icon "
              "lines (`Location icon should now be in state 'Active'`), launchd/sandboxd details in parentheses, a "
              "repeat notice. No device facts (a Mac), no app session.", data, data.count(b"\n"))


def mi_line(t: datetime, pid: int, thread: str, selector: str, msg: str, level="notice") -> str:
    return f"{t:%a %b} {t.day:>2} {t:%H:%M:%S %Y} [{pid}] <{level}> ({thread}) {selector}: {msg}"


def mobile_installation_lines(day: str, rng: random.Random) -> tuple[list[str], list[str]]:
    """Two rotated logs: an install of Runner (placeholder, then the app), later an uninstall of WeatherNow."""
    y, m, d = (int(x) for x in day.split("-"))
    t = datetime(y, m, d, 9, 12, 4)
    th = "0x16b48f000"
    inst = "-[MIInstaller performInstallationWithError:]"
    older = [
        mi_line(t, 234, th, "-[MIInstaller _installInstallable:containingSymlink:error:]",
                "Installing <MIInstallableBundle ID=com.example.runner; Version=(null), ShortVersion=(null)>"),
        mi_line(t, 234, th, inst, "Install Successful for (Placeholder:com.example.runner); Staging: 0.01s; Waiting: 0.00s; "
                "Preflight/Patch: 0.00s, Verifying: 0.00s; Overall: 0.09s"),
        mi_line(t + timedelta(seconds=14), 234, th, "-[MIInstaller _installInstallable:containingSymlink:error:]",
                "Installing <MIInstallableBundle ID=com.example.runner; Version=3200.14, ShortVersion=3.2.0>"),
        mi_line(t + timedelta(seconds=16), 234, th, "-[MIInstaller _onRegistrationQueue_registerInstalledInfo:error:]",
                "Successfully registered [com.example.runner/PersonalPersonaPlaceholderString] for 501", level="err"),
        mi_line(t + timedelta(seconds=16), 234, th, inst, "Install Successful for (Customer:com.example.runner); Staging: 0.03s; "
                "Waiting: 0.00s; Preflight/Patch: 0.06s, Verifying: 0.41s; Overall: 1.92s"),
    ]
    t2 = datetime(y, m, d, 17, 40, 47)
    un = "-[MIUninstaller _uninstallBundleWithIdentity:linkedToChildren:waitForDeletion:uninstallReason:temporaryReference:wasLastReference:error:]"
    newer = [
        mi_line(t2, 446, "0x16fc9b000", un, "Uninstalling identifier com.example.weather"),
        mi_line(t2, 446, "0x16fc9b000", un, f"Destroying container com.example.weather with persona "
                f"{uuid_from(rng)} at /private/var/containers/Bundle/Application/{uuid_from(rng)}", level="err"),
        mi_line(t2, 446, "0x16fc9b000", un, f"Destroying container com.example.weather with persona "
                f"{uuid_from(rng)} at /private/var/mobile/Containers/Data/Application/{uuid_from(rng)}", level="err"),
    ]
    return older, newer


def uuid_from(rng: random.Random) -> str:
    h = "%032X" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def containers_mobile_installation():
    dev, day = DEVICES["17"], "2026-11-22"
    older, newer = mobile_installation_lines(day, random.Random("mi17"))
    data = ("\n".join(older + newer) + "\n").encode()
    container(f"{dev.name}-{day}-mobile_installation.log", dev, "mobile-installation",
              "A sysdiagnose's `mobile_installation.log` (device local time with a year, `[pid]`, thread): Runner "
              "installed (placeholder, then the app), WeatherNow uninstalled with its `Destroying container` lines. "
              "Read as installd's records; which are install and uninstall events is the catalog's part.",
              data, data.count(b"\n"))


def containers_message_only():
    dev, day = DEVICES["17"], "2026-11-22"
    ck = "92F5C54E-CAEB-44A5-AF60-85E44A017BD2:com.example.runner"
    lines = [jm("Showing #AuthPrompt", requestType=2, client=ck),
             jm("#AuthPrompt AuthorizationRequest completion", ClientKey=ck,
                RequestType="CLClientManager_Type::AuthorizationRequestTypeWhenInUse"),
             "client '[92F5C54E-CAEB-44A5-AF60-85E44A017BD2]com.example.runner' not authorized for location; not starting yet",
             jm("CLLocationManager", event="activity", _cmd="startUpdatingLocation", self_="0x1038ead60")]
    data = ("\n".join(lines) + "\n").encode()
    container(f"{dev.name}-{day}-messages.log", dev, "message-only",
              "Console's message column alone (no time, no process): every line is counted `no-prefix`, no event, "
              "and the summary says to copy whole lines or export `log show --style ndjson`.", data, data.count(b"\n"))


def tar_gz(members: list[tuple[str, bytes | None]]) -> bytes:
    """A gzip'd GNU tar with fixed times and owners (byte for byte the same on every run)."""
    import io
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.mtime = 1795372200  # 2026-11-22 17:30 UTC
            info.uid = info.gid = 501
            info.uname = info.gname = "mobile"
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return gz(buf.getvalue())


def containers_sysdiagnose():
    day = "2026-11-22"
    top = "sysdiagnose_2026.11.22_18-30-00+0100_iPhone-OS_iPhone_21F90"
    older, newer = mobile_installation_lines(day, random.Random("mi-sysdiagnose"))
    mi = f"{top}/logs/MobileInstallation"
    members = [(f"{top}/", None), (f"{top}/logs/", None), (f"{mi}/", None),
               (f"{mi}/mobile_installation.log.1", ("\n".join(older) + "\n").encode()),
               (f"{mi}/mobile_installation.log.0", ("\n".join(newer) + "\n").encode()),
               (f"{top}/system_logs.logarchive/", None),
               (f"{top}/system_logs.logarchive/Persist/0000000000000001.tracev3", bytes(range(256)) * 4),
               (f"{top}/ps.txt", b"USER       PID  %CPU %MEM      VSZ    RSS   TT  STAT STARTED      TIME COMMAND\n")]
    data = tar_gz(members)
    container(f"{top}.tar.gz", None, "sysdiagnose",
              "A sysdiagnose archive (gzip'd tar, GNU long names): its two MobileInstallation logs are read (8 "
              "lines, numbered through the members in archive order); the build 21F90 in the name gives iOS 17.5.1; "
              "`system_logs.logarchive` needs `log show --archive … --style ndjson` on a Mac.", data, 8)


def write_containers(out: str):
    for fn in (containers_console, containers_console_xcode, containers_pymobiledevice3, containers_pymobiledevice3_json,
               containers_bsd_syslog, containers_mobile_installation, containers_message_only, containers_sysdiagnose):
        fn()
    for c in CONTAINERS:
        write(os.path.join(out, "containers", c["file"]), c["data"])
        if c["dev"] is not None:
            cap = datetime(2026, 11, 23, 18, 5, 0, tzinfo=ZoneInfo(c["dev"].tz))
            write(os.path.join(out, "containers", stem(c["file"]) + ".ideviceinfo.txt"), c["dev"].ideviceinfo(cap))


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def write(path: str, data: bytes | str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def stem(fname: str) -> str:
    for ext in (".log", ".ndjson", ".json", ".txt"):
        i = fname.find(ext)
        if i > 0:
            return fname[:i]
    return fname


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples"))
    out = os.path.normpath(ap.parse_args().out)
    for sub in ("devices", "apps", "logs", "broken", "containers"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))

    capture = {}  # device name -> capture time (for TimeIntervalSince1970)
    for fn in (log_ios7, log_ios8, log_ios10, log_ios12, log_ios13, log_ios14_newyear, log_ios14_syslog,
               log_ios17_default, log_ios13_json, log_ios18_ndjson, log_ios18_stream, log_privacy_report):
        fn()
    for s in SAMPLES:
        dev = s["dev"]
        day = s["file"][len(dev.name) + 1:len(dev.name) + 11]
        cap = datetime.fromisoformat(day).replace(hour=18, minute=int(hashlib.md5(s["file"].encode()).hexdigest()[:2], 16) % 60,
                                                  microsecond=int(hashlib.md5(s["file"].encode()).hexdigest()[2:7], 16) % 10**6,
                                                  tzinfo=ZoneInfo(dev.tz))
        write(os.path.join(out, "logs", s["file"]), s["data"])
        write(os.path.join(out, "logs", stem(s["file"]) + ".ideviceinfo.txt"), dev.ideviceinfo(cap))
        capture[dev.name] = cap
    for dev in DEVICES.values():
        write(os.path.join(out, "devices", f"{dev.name}.ideviceinfo.txt"), dev.ideviceinfo(capture[dev.name]))
    for app in APPS.values():
        fmt = plistlib.FMT_BINARY if app.binary else plistlib.FMT_XML
        write(os.path.join(out, "apps", f"{app.bundle}.plist"), plistlib.dumps(app.plist, fmt=fmt, sort_keys=True))
    write_containers(out)
    notes = broken_files(os.path.join(out, "broken"))
    write_broken_readme(os.path.join(out, "broken", "README.md"), notes)
    write_readme(os.path.join(out, "README.md"), out)
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(out) for f in fs)
    print(f"wrote {len(SAMPLES)} logs, {len(CONTAINERS)} containers/, {len(DEVICES)} devices, {len(APPS)} apps, broken/ to {out} "
          f"({total} bytes)", file=sys.stderr)


def write_broken_readme(path, notes):
    s = ["# samples/broken: inputs that must fail or degrade gracefully", "",
         "Kept out of `samples/logs/` so that `locaudit ingest samples/logs` succeeds cleanly.",
         "Written by `scripts/make_samples.py`; each log has its `.ideviceinfo.txt` sidecar.", "",
         "| file | what it is and what locaudit should do |", "|---|---|"]
    for name, note in notes:
        s.append(f"| `{name}` | {note} |")
    write(path, "\n".join(s) + "\n")


def write_readme(path, out):
    s = ["# samples", "",
         "Small, realistic inputs for locaudit, written by `python3 scripts/make_samples.py` (deterministic: "
         "re-running it rewrites these files byte for byte). Message shapes are those of "
         "`docs/log-formats.md`; rule ids those of `docs/rules-model.md`.", "",
         "- `devices/`: `ideviceinfo` output of the 8 test devices (one iOS version each).",
         "- `apps/`: Info.plists of the apps under test (`com.example.runner` and `com.example.tracker` are "
         "**binary** plists, the others XML).",
         "- `logs/`: one file per device-day, `<DeviceName>-<YYYY-MM-DD>.<ext>`, each with its device facts "
         "`<stem>.ideviceinfo.txt` (stem = the name up to the first `.log`/`.ndjson`/`.json`/`.txt`).",
         "- `broken/`: a truncated gzip and a file with malformed lines (see `broken/README.md`).",
         "- `containers/`: one sample of each container other collectors write (Console copies, pymobiledevice3, "
         "macOS `system.log`, the MobileInstallation log, bare messages, a sysdiagnose archive), each with well-behaved "
         "sessions and its sidecar where a device applies (see [Containers](#containers)).", "",
         "Times in idevicesyslog files have no year and no zone. They are the device's local time: the "
         "sidecar's `TimeZone` key (Europe/Paris for every device but `qa-iphone15pro-18`, America/New_York); "
         "the `timestamp` inside each location (seconds since 2001-01-01 UTC) is consistent with that zone, "
         "0.05-0.4 s before its line, so a run that assumes UTC sees fixes one hour off their lines (pass "
         "`--tz Europe/Paris` unless the sidecar's zone is used). The year is the one of the file name's date; git "
         "does not keep file times, so unless the date in the name is used, pass `--year 2026` (the year of the "
         "first line: also for `qa-iphone12-14-2027-01-01.log.gz`, whose first lines are 2026-12-31).", "",
         "## Devices", "", "| device | iOS | build | ProductType | UniqueDeviceID | zone |", "|---|---|---|---|---|---|"]
    for d in DEVICES.values():
        s.append(f"| {d.name} | {d.ios} | {d.build} | {d.product} | `{d.udid}` | {d.tz} |")
    s += ["", "## Apps", "", "| file | bundle id | executable | background modes | location keys | notes |",
          "|---|---|---|---|---|---|"]
    for a in APPS.values():
        p = a.plist
        keys = [k for k in sorted(p) if k.startswith("NSLocation") and k.endswith("UsageDescription")]
        notes = []
        if "NSLocationTemporaryUsageDescriptionDictionary" in p:
            notes.append("temporary purpose keys " + ", ".join(sorted(p["NSLocationTemporaryUsageDescriptionDictionary"])))
        if "NSLocationDefaultAccuracyReduced" in p:
            v = p["NSLocationDefaultAccuracyReduced"]
            notes.append(f"NSLocationDefaultAccuracyReduced = {v!r}" + (" (Boolean)" if isinstance(v, bool) else " (**string**: config error)"))
        if a.bundle == "com.example.tracker":
            notes.append("sets allowsBackgroundLocationUpdates YES at run time")
        fmt = "binary" if a.binary else "XML"
        s.append(f"| `apps/{a.bundle}.plist` ({fmt}) | {a.bundle} | {a.exe} | {', '.join(p.get('UIBackgroundModes', [])) or '-'} "
                 f"| {', '.join(keys)} | {'; '.join(notes) or '-'} |")
    s += ["", "## Logs", "",
          "| file | container | device | iOS | lines | what is in it | expected findings |", "|---|---|---|---|---|---|---|"]
    for x in SAMPLES:
        exp = "<br>".join(x["expect"]) or "none (well-behaved)"
        s.append(f"| `logs/{x['file']}` | {x['container']} | {x['dev'].name} | {x['dev'].ios} | {x['lines']} "
                 f"| {x['summary']} | {exp} |")
    s += ["", "`lines` counts text lines of the uncompressed file (for the `.json` file: records). "
          "Every file also holds non-location noise from system processes (SpringBoard, backboardd, kernel, "
          "wifid, mDNSResponder, CommCenter, ...), including locationd lines whose `msg` is not in the catalog "
          "(`WifiTile`, `state transition` of state `Fence`, `Incoming message`) and the real `#CLIUA AppMonitor "
          "notification` / `#CLIUA Marking change` companions of each RBS state line (same facts: must not create "
          "a second state change).", "",
          "Configuration findings follow from `apps/` and the iOS versions the apps were seen on (e.g. "
          "`background-flag-without-capability` for Tracker where its crash is seen on iOS 9+, "
          "`invalid-default-accuracy-reduced` for Legacy on iOS 14+, `missing-usage-description` for an Always "
          "request by Legacy on iOS 11+); the table lists the ones the logs make visible.", "",
          "## Containers", "",
          "Kept apart from `logs/` so that the walk-through's figures stay those of `logs/`. Every session in them is "
          "well-behaved (no finding expected); `locaudit ingest samples/apps samples/containers` reads them all "
          "(the Console copies' day comes from the date in their names).", "",
          "| file | container | device | lines | what is in it |", "|---|---|---|---|---|"]
    for c in CONTAINERS:
        dev = c["dev"].name if c["dev"] else "-"
        s.append(f"| `containers/{c['file']}` | {c['container']} | {dev} | {c['lines']} | {c['summary']} |")
    s.append("")
    write(path, "\n".join(s))


if __name__ == "__main__":
    main()
