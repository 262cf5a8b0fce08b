"""What the sample and fleet generators share: the log lines of docs/log-formats.md
(CoreLocation's and locationd's JSON-like messages, SpringBoard's launch line), the syslog
clock's month names, syslog_relay's vis(3) escaping, and a device's identity (UDID, ECID,
serial, MAC addresses) drawn from its name.

Imported by make_samples.py (samples/), make_audit_samples.py (samples/audit/) and
generate_fleet.py (a fleet of any size); not run by itself. The functions only format:
every random draw stays in the generator that makes it, so each output is deterministic.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

MON = ["", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
CF_EPOCH = datetime(2001, 1, 1, tzinfo=timezone.utc)
SERIAL_ALPHABET = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"


def vis(s: str) -> str:
    """syslog_relay's vis(3) encoding: high bytes as \\M-x / \\M^x, backslash as \\134."""
    if s.isascii() and "\\" not in s:
        return s
    out = []
    for b in s.encode("utf-8"):
        if b == 0x5C:
            out.append("\\134")
        elif b >= 0x80:
            c = b & 0x7F
            out.append("\\M^" + ("?" if c == 0x7F else chr(c + 0x40)) if c < 0x20 or c == 0x7F else "\\M-" + chr(c))
        else:
            out.append(chr(b))
    return "".join(out)


# --------------------------------------------------------------------------
# a device's identity, drawn from its name
# --------------------------------------------------------------------------


def ident(name: str, what: str, n: int, alphabet: str = SERIAL_ALPHABET) -> str:
    """n characters of `alphabet` from the hash of `what` and the device's name (serial, ids)."""
    d = hashlib.sha256((what + name).encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in d[:n])


def mac(name: str, what: str) -> str:
    d = hashlib.sha256((what + name).encode()).digest()
    return ":".join(f"{b:02x}" for b in bytes([d[0] & 0xFC]) + d[1:6])


def ecid(name: str) -> int:
    return int(hashlib.sha256(("ecid" + name).encode()).hexdigest()[:13], 16)


def udid(name: str, chip: int, new_style: bool) -> str:
    """`CHIPID-ECID` on the devices that use it, else 40 hex digits."""
    if new_style:
        return f"{chip:08X}-{ecid(name):016X}"
    return hashlib.sha1(("udid" + name).encode()).hexdigest()


# --------------------------------------------------------------------------
# location lines (docs/log-formats.md), message text only
# --------------------------------------------------------------------------


def bootstrapping(bundle: str, intent: str) -> str:
    """SpringBoard (FrontBoard) launches the app."""
    return f"Bootstrapping app<{bundle}> with intent {intent}"


def app_state(notification: str, pid: int, bundle: str) -> str:
    """RunningBoard's state of a process, as locationd logs it."""
    return ('{"msg":"RBS #AppMonitor Post Application State Change Notification", '
            f'"notification":"{notification}", "pid":{pid}, "bundleId":"{bundle}"}}')


def launch_client(bundle: str, service: str) -> str:
    """locationd relaunches the app for a location event."""
    return f'{{"msg":"#Launch client for location event", "bundleId":"{bundle}", "service":"{service}"}}'


def prompt(bundle: str, kind: str, options: str) -> str:
    return f'{{"msg":"#Authorization prompt", "bundleId":"{bundle}", "kind":"{kind}", "options":"{options}"}}'


def prompt_response(bundle: str, choice: str) -> str:
    return f'{{"msg":"#Authorization prompt response", "bundleId":"{bundle}", "choice":"{choice}"}}'


def authorization_changed(bundle: str, status: str, reason: str = "Prompt", provisional: int = 0, temporary: int = 0) -> str:
    return (f'{{"msg":"#Authorization changed", "bundleId":"{bundle}", "status":"{status}", '
            f'"reason":"{reason}", "provisional":{provisional:d}, "temporary":{temporary:d}}}')


def accuracy_changed(bundle: str, accuracy: str, temporary: int, purpose: str | None = None, reason: str | None = None) -> str:
    extra = (f', "purposeKey":"{purpose}"' if purpose else "") + (f', "reason":"{reason}"' if reason else "")
    return f'{{"msg":"#Accuracy authorization changed", "bundleId":"{bundle}", "accuracy":"{accuracy}", "temporary":{temporary:d}{extra}}}'


def blue_bar(bundle: str, visible: int) -> str:
    return f'{{"msg":"#BackgroundIndicator visibility", "bundleId":"{bundle}", "visible":{visible:d}}}'


def activity(cmd: str, mgr: str, extra: str = "") -> str:
    """The app calls a CLLocationManager method; `extra`: more `, "key":value` pairs."""
    return f'{{"msg":"CLLocationManager", "event":"activity", "_cmd":"{cmd}", "self":"{mgr}"{extra}}}'


def transition(mgr: str, prop: str, old: int, new: int) -> str:
    """A CLLocationManager property changes (`allowsBackgroundLocationUpdates`...)."""
    return ('{"msg":"state transition", "event":"state_transition", "state":"LocationManager", '
            f'"id":"{mgr}", "property":"{prop}", "old":{old:d}, "new":{new:d}}}')


def delegate(mgr: str, dlg: str | None, selector: str, rest: str = "") -> str:
    """CoreLocation calls the app's delegate; `rest`: the pairs after the selector."""
    d = f', "delegate":"{dlg}"' if dlg is not None else ""
    return f'{{"msg":"#CLLocationManager invoking #delegate", "self":"{mgr}"{d}, "selector":"{selector}"{rest}}}'


def told(mgr: str, dlg: str, status: str, modern: bool, limits: int | None = None, widget: int | None = None) -> str:
    """The delegate is told the status: `locationManagerDidChangeAuthorization:` (iOS 14+, `modern`,
    with `limitsPrecision` and `isAuthorizedForWidgetUpdates` where given) or the older callback."""
    if not modern:
        return delegate(mgr, dlg, "locationManager:didChangeAuthorizationStatus:", f', "authorizationStatus":"{status}"')
    rest = f', "authorizationStatus":"{status}"'
    rest += f', "limitsPrecision":{limits:d}' if limits is not None else ""
    rest += f', "isAuthorizedForWidgetUpdates":{widget:d}' if widget is not None else ""
    return delegate(mgr, dlg, "locationManagerDidChangeAuthorization:", rest)


def delivered(mgr: str, dlg: str, location: str) -> str:
    """A location reaches the delegate; `location`: its rendered value (`{...}` or `<private>`)."""
    return delegate(mgr, dlg, "locationManager:didUpdateLocations:", f', "location":{location}')
