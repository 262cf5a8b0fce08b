#!/usr/bin/env python3
"""Runs every rule example of this build (as `locaudit rules explain` prints them) through
another locaudit binary, and says which examples that binary gets wrong: the way to show that
a changed rule's new examples fail on the code before the change.

    scripts/rule_examples_against.py NEW_LOCAUDIT OLD_LOCAUDIT [RULE ...]

NEW_LOCAUDIT prints the examples (`rules list`, `rules explain`); OLD_LOCAUDIT ingests and
audits each one as `RuleExampleRunner` does (an idevicesyslog file of 2026 in UTC, an
ideviceinfo sidecar, the example's Info.plist) with `--rule` and `--format json`. Prints one
line per example, `ok` or `WRONG` with what the old binary did; exits 0 either way.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

KIND = {"Triggers": "triggers", "Does not trigger": "does not trigger", "Not evaluable": "not evaluable"}


def examples(new, rule):
    text = subprocess.run([new, "rules", "explain", rule], capture_output=True, text=True, check=True).stdout
    out, current = [], None
    for line in text.split("\n"):
        m = re.match(r"^(Triggers|Does not trigger|Not evaluable) (\d+) \((.*)\):$", line)
        if m:
            current = {"kind": KIND[m.group(1)], "n": m.group(2), "head": m.group(3), "log": []}
            out.append(current)
        elif current and line.startswith("    "):
            current["log"].append(line[4:])
        elif current and line.strip() == "":
            current = None
    return out


def plist(head):
    """The Info.plist of an example, from explain's summary; None for no Info.plist."""
    if "no Info.plist" in head:
        return None
    parts = {}
    for part in head.split("; ")[1:]:
        for name in ("Info.plist: ", "unknown: ", "UIBackgroundModes ", "purpose keys ", "NSLocationDefaultAccuracyReduced ",
                     "DTPlatformVersion "):
            if part.startswith(name):
                parts[name.rstrip(": ")] = part[len(name):]
    keys = [k for k in parts.get("Info.plist", "").split(", ") if k]
    modes = parts.get("UIBackgroundModes", "[]").strip("[]").split(", ")
    body = "<key>CFBundleIdentifier</key><string>com.example.app</string><key>CFBundleExecutable</key><string>App</string>"
    body += "".join("<key>%s</key><string>Shows where you are.</string>" % k for k in keys)
    body += "<key>UIBackgroundModes</key><array>%s</array>" % "".join("<string>%s</string>" % m for m in modes if m)
    if "purpose keys" in parts:
        purposes = [p for p in parts["purpose keys"].strip("[]").split(", ") if p]
        body += "<key>NSLocationTemporaryUsageDescriptionDictionary</key><dict>%s</dict>" % "".join(
            "<key>%s</key><string>Needs a precise location.</string>" % p for p in purposes)
    if "NSLocationDefaultAccuracyReduced" in parts:
        body += "<key>NSLocationDefaultAccuracyReduced</key>" + parts["NSLocationDefaultAccuracyReduced"]
    if "DTPlatformVersion" in parts:
        v = parts["DTPlatformVersion"]
        body += "<key>DTPlatformVersion</key><string>%s</string><key>DTSDKName</key><string>iphoneos%s</string>" % (v, v)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0"><dict>%s</dict></plist>\n' % body)


def run(old, rule, example):
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "example-2026-11-20.log")
        with open(log, "w") as f:
            f.write("\n".join(example["log"]) + "\n")
        os_version = example["head"].split(";")[0].replace("iOS ", "").strip()
        facts = "UniqueDeviceID: example-device\nDeviceName: iPhone\n"
        if os_version != "unknown":
            facts += "ProductVersion: %s\n" % os_version
        with open(os.path.join(d, "example-2026-11-20.ideviceinfo.txt"), "w") as f:
            f.write(facts)
        db = os.path.join(d, "example.sqlite")
        args = [old, "ingest", "--db", db, "--year", "2026", "--tz", "UTC", log]
        p = plist(example["head"])
        if p:
            with open(os.path.join(d, "Info.plist"), "w") as f:
                f.write(p)
            args += ["--info-plist", os.path.join(d, "Info.plist")]
        subprocess.run(args, capture_output=True, check=True)
        audit = subprocess.run([old, "audit", "--db", db, "--rule", rule, "--format", "json"], capture_output=True, text=True)
        try:
            report = json.loads(audit.stdout)
        except ValueError:
            return "no report (exit %d: %s)" % (audit.returncode, audit.stderr.strip()[:200])
        found = [f for f in report["findings"] if f["rule"] == rule]
        reasons = report["coverage"]["notEvaluable"].get(rule, {})
        evaluated = report["coverage"]["evaluated"] > 0
        if example["kind"] == "triggers":
            return None if found else "no finding (%s)" % (", ".join(reasons) or "evaluated, passed")
        if example["kind"] == "does not trigger":
            return "finding: %s" % found[0]["message"] if found else None
        return "finding: %s" % found[0]["message"] if found else ("judged (a pass)" if evaluated else None)


def main():
    new, old = sys.argv[1], sys.argv[2]
    rules = sys.argv[3:] or [l.split()[0] for l in subprocess.run([new, "rules", "list"], capture_output=True, text=True).stdout.split("\n")
                             if re.match(r"^[a-z][a-z-]+ +(critical|high|medium|low|info) ", l)]
    for rule in rules:
        for example in examples(new, rule):
            problem = run(old, rule, example)
            print("%-7s %s %s %s (%s)%s" % ("ok" if problem is None else "WRONG", rule, example["kind"], example["n"],
                                           example["head"], "" if problem is None else ": " + problem))


if __name__ == "__main__":
    main()
