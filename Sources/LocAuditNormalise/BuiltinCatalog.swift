/// The built-in message catalog, in the same format as a user catalog file.
///
/// `locaudit catalog show` prints it; copy a pattern into your own file (same `id`)
/// to override it when Apple rewords a message. Every sample runs in the test suite.
enum BuiltinCatalog {
    static let json = #"""
{
  "systemProcesses": ["locationd", "SpringBoard", "runningboardd", "backboardd", "dasd", "routined", "contextstored", "duetexpertd", "coreduetd", "symptomsd", "healthd", "CommCenter", "wifid", "audiomxd", "PerfPowerServices", "useractivityd", "WirelessRadioManagerd", "callservicesd", "gamepolicyd", "watchdogd", "itunesstored", "UserEventAgent", "installd", "searchpartyd", "findmydeviced", "geod", "navd", "weatherd", "suggestd", "assistantd", "homed", "nearbyd", "milod"],
  "patterns": [
    {
      "id": "app.authorization",
      "kind": "authorization",
      "scope": "app",
      "msg": "#CLLocationManager invoking #delegate",
      "when": {"selector": ["locationManagerDidChangeAuthorization:", "locationManager:didChangeAuthorizationStatus:"]},
      "fields": {"status": "authorizationStatus", "accuracy": "limitsPrecision"},
      "require": ["status"],
      "samples": [
        {"message": "{\"msg\":\"#CLLocationManager invoking #delegate\", \"self\":\"0x1483580a0\", \"delegate\":\"0x148270140\", \"selector\":\"locationManagerDidChangeAuthorization:\", \"authorizationStatus\":\"AuthorizedWhenInUse\", \"limitsPrecision\":0, \"isAuthorizedForWidgetUpdates\":0}",
         "expect": {"kind": "authorization", "status": "authorizedWhenInUse", "accuracy": "full"}},
        {"message": "{\"msg\":\"#CLLocationManager invoking #delegate\", \"selector\":\"locationManager:didChangeAuthorizationStatus:\", \"authorizationStatus\":\"Denied\", \"self\":\"0x10\"}",
         "expect": {"kind": "authorization", "status": "denied"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS app (hootowl), quoted in log-formats.md and real-lines.md"}
    },
    {
      "id": "app.delivery",
      "kind": "location",
      "scope": "app",
      "msg": "#CLLocationManager invoking #delegate",
      "when": {"selector": ["locationManager:didUpdateLocations:", "locationManager:didUpdateToLocation:fromLocation:"]},
      "fields": {"horizontal_accuracy": "location.horizontalAccuracy", "latitude": "location.latitude", "longitude": "location.longitude", "location_private": "location"},
      "samples": [
        {"message": "{\"msg\":\"#CLLocationManager invoking #delegate\", \"self\":\"0x1483580a0\", \"delegate\":\"0x148270140\", \"selector\":\"locationManager:didUpdateLocations:\", \"location\":{\"latitude\":48.8584, \"longitude\":2.2945, \"horizontalAccuracy\":5, \"timestamp\":810124690.49}}",
         "expect": {"kind": "location", "horizontal_accuracy": "5", "latitude": "48.8584", "location_private": "0"}},
        {"message": "{\"msg\":\"#CLLocationManager invoking #delegate\", \"self\":\"0x1483580a0\", \"selector\":\"locationManager:didUpdateLocations:\", \"location\":<private>}",
         "expect": {"kind": "location", "location_private": "1"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS app (hootowl), quoted in log-formats.md and real-lines.md"}
    },
    {
      "id": "app.paused",
      "kind": "property",
      "scope": "app",
      "msg": "#CLLocationManager invoking #delegate",
      "when": {"selector": ["locationManagerDidPauseLocationUpdates:"]},
      "set": {"property": "paused", "value": "1"},
      "samples": [
        {"message": "{\"msg\":\"#CLLocationManager invoking #delegate\", \"self\":\"0x1\", \"selector\":\"locationManagerDidPauseLocationUpdates:\"}",
         "expect": {"kind": "property", "property": "paused", "value": "1"}}
      ],
      "provenance": {"evidence": "reference", "source": "no real line; CoreLocation's generic delegate format string is real, this selector in it is assumed"}
    },
    {
      "id": "app.resumed",
      "kind": "property",
      "scope": "app",
      "msg": "#CLLocationManager invoking #delegate",
      "when": {"selector": ["locationManagerDidResumeLocationUpdates:"]},
      "set": {"property": "paused", "value": "0"},
      "samples": [
        {"message": "{\"msg\":\"#CLLocationManager invoking #delegate\", \"self\":\"0x1\", \"selector\":\"locationManagerDidResumeLocationUpdates:\"}",
         "expect": {"kind": "property", "property": "paused", "value": "0"}}
      ],
      "provenance": {"evidence": "binary", "source": "CoreLocation format string (iOS 26) logs this selector at Info level; no pasted line"}
    },
    {
      "id": "app.property",
      "kind": "property",
      "scope": "app",
      "msg": "state transition",
      "when": {"state": ["LocationManager"]},
      "fields": {"property": "property", "value": "new"},
      "samples": [
        {"message": "{\"msg\":\"state transition\", \"event\":\"state_transition\", \"state\":\"LocationManager\", \"id\":\"0x282a9d890\", \"property\":\"updatingLocation\", \"old\":1, \"new\":0}",
         "expect": {"kind": "property", "property": "updatingLocation", "value": "0"}},
        {"message": "{\"msg\":\"state transition\", \"event\":\"state_transition\", \"state\":\"LocationManager\", \"id\":\"0x158e14030\", \"property\":\"allowsBackgroundLocationUpdates\", \"old\":0, \"new\":1}",
         "expect": {"kind": "property", "property": "allowsBackgroundLocationUpdates", "value": "1"}},
        {"message": "{\"msg\":\"state transition\", \"event\":\"state_transition\", \"state\":\"LocationManager\", \"id\":\"0x158e14030\", \"property\":\"pausesLocationUpdatesAutomatically\", \"old\":{\"type\":\"decode failure\",\"raw value\":0,\"expected type\":\"Generic\"}, \"new\":{\"type\":\"decode failure\",\"raw value\":1,\"expected type\":\"Generic\"}}",
         "expect": {"kind": "property", "property": "pausesLocationUpdatesAutomatically", "value": "1"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy, iOS 16.3 (transistorsoft/react-native-background-geolocation#1860; fixtures/real/transistorsoft-*); the decode-failure value form is real (log-formats.md)"}
    },
    {
      "id": "app.set-background-flag",
      "kind": "property",
      "scope": "app",
      "msg": "CLLocationManager",
      "when": {"event": ["activity"], "_cmd": ["setAllowsBackgroundLocationUpdates:"]},
      "fields": {"value": "allows", "call": "_cmd"},
      "set": {"property": "allowsBackgroundLocationUpdates"},
      "require": ["value"],
      "samples": [
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"setAllowsBackgroundLocationUpdates:\", \"self\":\"0x1483580a0\", \"allows\":1}",
         "expect": {"kind": "property", "property": "allowsBackgroundLocationUpdates", "value": "1", "call": "setAllowsBackgroundLocationUpdates:"}}
      ],
      "provenance": {"evidence": "real", "source": "setter lines with their value, quoted in log-formats.md (\"Setters carry the value\"); the sample's address is filled in"}
    },
    {
      "id": "app.set-indicator-flag",
      "kind": "property",
      "scope": "app",
      "msg": "CLLocationManager",
      "when": {"event": ["activity"], "_cmd": ["setShowsBackgroundLocationIndicator:"]},
      "fields": {"value": "shows", "call": "_cmd"},
      "set": {"property": "showsBackgroundLocationIndicator"},
      "require": ["value"],
      "samples": [
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"setShowsBackgroundLocationIndicator:\", \"self\":\"0x1483580a0\", \"shows\":0}",
         "expect": {"kind": "property", "property": "showsBackgroundLocationIndicator", "value": "0", "call": "setShowsBackgroundLocationIndicator:"}}
      ],
      "provenance": {"evidence": "real", "source": "setter lines with their value, quoted in log-formats.md (\"Setters carry the value\"); the sample's address is filled in"}
    },
    {
      "id": "app.set-pauses-automatically",
      "kind": "property",
      "scope": "app",
      "msg": "CLLocationManager",
      "when": {"event": ["activity"], "_cmd": ["setPausesLocationUpdatesAutomatically:"]},
      "fields": {"value": "pausesLocationUpdatesAutomatically", "call": "_cmd"},
      "set": {"property": "pausesLocationUpdatesAutomatically"},
      "require": ["value"],
      "samples": [
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"setPausesLocationUpdatesAutomatically:\", \"self\":\"0x1483580a0\", \"pausesLocationUpdatesAutomatically\":0}",
         "expect": {"kind": "property", "property": "pausesLocationUpdatesAutomatically", "value": "0", "call": "setPausesLocationUpdatesAutomatically:"}}
      ],
      "provenance": {"evidence": "real", "source": "setter lines with their value, quoted in log-formats.md (\"Setters carry the value\"); the sample's address is filled in"}
    },
    {
      "id": "app.call",
      "kind": "call",
      "scope": "app",
      "msg": "CLLocationManager",
      "when": {"event": ["activity"]},
      "fields": {"call": "_cmd", "service": "_cmd", "purpose_key": "purposeKey", "bundle_id": "clientKey"},
      "samples": [
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"startUpdatingLocation\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "call": "startUpdatingLocation", "service": "standard"}},
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"requestTemporaryFullAccuracyAuthorizationWithPurposeKey:\", \"purposeKey\":\"Delivery\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "call": "requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", "purpose_key": "Delivery"}},
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"startMonitoringSignificantLocationChanges\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "service": "significantChange"}},
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"onClientEventRegistration:\", \"self\":\"0x1483580a0\", \"clientKey\":\"icom.sharkda.hootowl:\"}",
         "expect": {"kind": "call", "call": "onClientEventRegistration:", "bundle_id": "com.sharkda.hootowl"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS app (hootowl), quoted in log-formats.md and real-lines.md; the purposeKey key is a reference shape"}
    },
    {
      "id": "app.crash",
      "kind": "crash",
      "scope": "app",
      "contains": "*** Terminating app due to uncaught exception",
      "regex": "reason: '(?<reason>[^']*)",
      "fields": {"reason": "reason"},
      "samples": [
        {"message": "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)'",
         "expect": {"kind": "crash", "reason": "Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)"}},
        {"message": "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient) || _CFMZEnabled()'",
         "expect": {"kind": "crash", "reason": "Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient) || _CFMZEnabled()"}},
        {"message": "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroun",
         "expect": {"kind": "crash", "reason": "Invalid parameter not satisfying: !stayUp || CLClientIsBackgroun"}}
      ],
      "provenance": {"evidence": "real", "source": "pasted in many bug reports; newer iOS appends \" || _CFMZEnabled()\", and a line cut short keeps the start of the reason"}
    },
    {
      "id": "system.crash.process-exited",
      "kind": "crash",
      "scope": "system",
      "contains": "] Process exited: ",
      "process": ["SpringBoard"],
      "regex": "^\\[(?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>:(?<pid>\\d+)\\] Process exited: .*code:(?<reason>SIG(?:SEGV|ABRT|BUS|ILL|TRAP|FPE|SYS)\\(\\d+\\))",
      "fields": {"bundle_id": "bundle", "app_pid": "pid", "reason": "reason"},
      "samples": [
        {"message": "[app<com.hightowerai.MobileJarvisNative>:26683] Process exited: <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGABRT(6)>>.", "process": "SpringBoard",
         "expect": {"kind": "crash", "bundle_id": "com.hightowerai.MobileJarvisNative", "app_pid": "26683", "reason": "SIGABRT(6)"}},
        {"message": "[application<com.example.app>:501] Process exited: <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGSEGV(11)>>.", "process": "SpringBoard",
         "expect": {"kind": "crash", "bundle_id": "com.example.app", "app_pid": "501", "reason": "SIGSEGV(11)"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copies of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-* lines 1261 and 122, SIGABRT(6)); SIGSEGV(11) and application<…> are the same line's other values. The FBApplicationProcess form a line later tells the same exit again and is not read; SIGKILL (a kill, a watchdog) is no crash"}
    },
    {
      "id": "system.crash.service-exited",
      "kind": "crash",
      "scope": "system",
      "contains": "Service exited due to ",
      "process": ["launchd", "com.apple.xpc.launchd"],
      "regex": "^\\(UIKitApplication:(?<bundle>[^\\[\\]()\\s]+)\\[[^\\]]*\\](?:\\[[^\\]]*\\])*\\):? Service exited due to (?:signal: )?(?<reason>Segmentation fault: 11|Abort trap: 6|Bus error: 10|Illegal instruction: 4|Trace/BPT trap: 5|Floating point exception: 8|SIG(?:SEGV|ABRT|BUS|ILL|TRAP|FPE))",
      "fields": {"bundle_id": "bundle", "reason": "reason"},
      "samples": [
        {"message": "(UIKitApplication:com.example.app[0x8e1c][64]) Service exited due to Segmentation fault: 11", "process": "launchd",
         "expect": {"kind": "crash", "bundle_id": "com.example.app", "reason": "Segmentation fault: 11"}},
        {"message": "(UIKitApplication:com.example.app[0x8e1c]): Service exited due to signal: Abort trap: 6", "process": "launchd",
         "expect": {"kind": "crash", "bundle_id": "com.example.app", "reason": "Abort trap: 6"}}
      ],
      "provenance": {"evidence": "reference", "source": "launchd's \"Service exited due to Segmentation fault: 11\" (issue 26) for an app's job, UIKitApplication:BUNDLE[…]; the job's bracketed numbers are no pid. macOS system.log has the same daemon's \"Service exited with abnormal code\" (fixtures/real/loghub-mac-2k-macos-system.log line 498), which is not a crash"}
    },
    {
      "id": "app.usage-key-missing",
      "kind": "usage-key-missing",
      "scope": "app",
      "contains": "privacy-sensitive data without a usage description",
      "regex": "must contain (?:both )?(?<keys>“[^”]+”(?: and “[^”]+”)?)",
      "fields": {"value": "keys"},
      "samples": [
        {"message": "This app has attempted to access privacy-sensitive data without a usage description. The app's Info.plist must contain both “NSLocationAlwaysAndWhenInUseUsageDescription” and “NSLocationWhenInUseUsageDescription” keys with string values explaining to the user how the app uses this data",
         "expect": {"kind": "usage-key-missing", "value": "“NSLocationAlwaysAndWhenInUseUsageDescription” and “NSLocationWhenInUseUsageDescription”"}}
      ],
      "provenance": {"evidence": "real", "source": "Xcode console, pasted in bug reports (log-formats.md)"}
    },
    {
      "id": "system.app-state",
      "kind": "app-state",
      "scope": "system",
      "msg": "RBS #AppMonitor Post Application State Change Notification",
      "fields": {"app_state": "notification", "app_pid": "pid", "bundle_id": "bundleId"},
      "require": ["app_state"],
      "samples": [
        {"message": "{\"msg\":\"RBS #AppMonitor Post Application State Change Notification\", \"notification\":\"ForegroundRunning\", \"pid\":26683, \"bundleId\":\"com.hightowerai.MobileJarvisNative\"}",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "26683", "bundle_id": "com.hightowerai.MobileJarvisNative"}},
        {"message": "{\"msg\":\"RBS #AppMonitor Post Application State Change Notification\", \"notification\":\"Terminated\", \"pid\":26683, \"bundleId\":\"com.hightowerai.MobileJarvisNative\"}",
         "expect": {"kind": "app-state", "app_state": "terminated", "app_pid": "26683"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) lines 188 and 1284 (ForegroundRunning, Terminated); BackgroundRunning and BackgroundTaskSuspended are not seen"}
    },
    {
      "id": "system.app-state.termination",
      "kind": "app-state",
      "scope": "system",
      "msg": "#dic AppMonitor received Termination",
      "fields": {"app_pid": "pid", "bundle_id": "bundleId", "user_kill": "isUserKill"},
      "set": {"app_state": "terminated"},
      "samples": [
        {"message": "{\"msg\":\"#dic AppMonitor received Termination\", \"pid\":26683, \"bundleId\":\"com.hightowerai.MobileJarvisNative\", \"isUserKill\":0}",
         "expect": {"kind": "app-state", "app_state": "terminated", "app_pid": "26683", "user_kill": "0"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) line 1281"}
    },
    {
      "id": "system.app-state.termination-rbs",
      "kind": "app-state",
      "scope": "system",
      "msg": "RBS #dic AppMonitor received Termination",
      "fields": {"app_pid": "pid", "bundle_id": "bundleId", "user_kill": "isUserKill"},
      "set": {"app_state": "terminated"},
      "samples": [
        {"message": "{\"msg\":\"RBS #dic AppMonitor received Termination\", \"pid\":26683, \"bundleId\":\"com.hightowerai.MobileJarvisNative\", \"isUserKill\":0}",
         "expect": {"kind": "app-state", "app_state": "terminated", "app_pid": "26683", "user_kill": "0"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) line 1283"}
    },
    {
      "id": "system.app-state.cliua",
      "kind": "app-state",
      "scope": "system",
      "msg": "#CLIUA AppMonitor notification",
      "fields": {"app_state": "notification", "app_pid": "pid", "bundle_id": "bundleId|ClientKey"},
      "require": ["app_state"],
      "samples": [
        {"message": "{\"msg\":\"#CLIUA AppMonitor notification\", \"notification\":\"ForegroundRunning\", \"pid\":26683, \"bundleId\":\"com.hightowerai.MobileJarvisNative\", \"ClientKey\":\"icom.hightowerai.MobileJarvisNative:\"}",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "26683", "bundle_id": "com.hightowerai.MobileJarvisNative"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) lines 191 and 1286"}
    },
    {
      "id": "system.app-state.not-posted",
      "kind": "app-state",
      "scope": "system",
      "msg": "Not Posting Application State Change Notification via legacy path",
      "fields": {"app_state": "notification", "app_pid": "pid", "bundle_id": "bundleId"},
      "require": ["app_state"],
      "samples": [
        {"message": "{\"msg\":\"Not Posting Application State Change Notification via legacy path\", \"notification\":\"ForegroundRunning\", \"pid\":26683, \"bundleId\":\"com.hightowerai.MobileJarvisNative\"}",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "26683"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) lines 187 and 1282"}
    },
    {
      "id": "system.app-state.legacy-handler",
      "kind": "app-state",
      "scope": "system",
      "msg": "invoking applicationStateChange handler",
      "regex": "(?s)^(?=.*SBApplicationStateKey = (?<state>[1248]);)(?=.*SBApplicationStateProcessIDKey = (?<pid>\\d+);)(?=.*SBApplicationStateDisplayIDKey = \\\\?\"(?<bundle>[^\"\\\\]+))",
      "fields": {"app_state": "state", "app_pid": "pid", "bundle_id": "bundle"},
      "require": ["app_state"],
      "samples": [
        {"message": "{\"msg\":\"invoking applicationStateChange handler\", \"StateChangeData\":\"{\\n    BKSApplicationStateAppIsFrontmost = 1;\\n    BKSApplicationStateExtensionKey = 0;\\n    SBApplicationStateDisplayIDKey = \\\"com.hightowerai.MobileJarvisNative\\\";\\n    SBApplicationStateKey = 8;\\n    SBApplicationStateProcessIDKey = 26683;\\n    SBMostElevatedStateForProcessID = 8;\\n}\"}",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "26683", "bundle_id": "com.hightowerai.MobileJarvisNative"}},
        {"message": "{\"msg\":\"invoking applicationStateChange handler\", \"StateChangeData\":\"{\\n    BKSApplicationStateAppIsFrontmost = 0;\\n    BKSApplicationStateExtensionKey = 0;\\n    SBApplicationStateDisplayIDKey = \\\"com.hightowerai.MobileJarvisNative\\\";\\n    SBApplicationStateKey = 1;\\n    SBApplicationStateProcessIDKey = 26683;\\n    SBMostElevatedStateForProcessID = 1;\\n}\"}",
         "expect": {"kind": "app-state", "app_state": "terminated", "app_pid": "26683"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) lines 185 (state 8) and 1279 (state 1); the numbers are BKSApplicationState (1 terminated, 2 suspended, 4 background running, 8 foreground running: AssertionServices headers)"}
    },
    {
      "id": "system.app-state.received",
      "kind": "app-state",
      "scope": "system",
      "contains": "Received state update for ",
      "process": ["locationd"],
      "regex": "Received state update for (?<pid>\\d+) \\((?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>, (?<state>running-(?:active|suspended)-(?:Visible|NotVisible))",
      "fields": {"app_state": "state", "app_pid": "pid", "bundle_id": "bundle"},
      "samples": [
        {"message": "Received state update for 26683 (app<com.hightowerai.MobileJarvisNative(BED36376-5A4B-42A9-9620-6AE0BC5F0283)>, running-active-Visible", "process": "locationd",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "26683", "bundle_id": "com.hightowerai.MobileJarvisNative"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) line 183 (running-active-Visible); some twenty daemons print it, and their views differ (gamepolicyd says NotVisible): only locationd's counts. none-NotVisible is not mapped"}
    },
    {
      "id": "system.app-state.runningboard-foreground",
      "kind": "app-state",
      "scope": "system",
      "contains": "Calculated state for ",
      "regex": "^Calculated state for (?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>: running-active \\(role: UserInteractive(?:Focal|NonFocal)?\\)",
      "fields": {"bundle_id": "bundle"},
      "set": {"app_state": "foregroundRunning"},
      "samples": [
        {"message": "Calculated state for app<com.hightowerai.MobileJarvisNative(BED36376-5A4B-42A9-9620-6AE0BC5F0283)>: running-active (role: UserInteractiveFocal) (endowments: <private>)",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "bundle_id": "com.hightowerai.MobileJarvisNative"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) line 118; a state of none is system.app-state.runningboard-none"}
    },
    {
      "id": "system.app-state.runningboard-background",
      "kind": "app-state",
      "scope": "system",
      "contains": "Calculated state for ",
      "regex": "^Calculated state for (?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>: running-active \\(role: Background\\)",
      "fields": {"bundle_id": "bundle"},
      "set": {"app_state": "backgroundRunning"},
      "samples": [
        {"message": "Calculated state for app<com.example.app(8A1B2C3D-0000-4000-8000-000000000001)>: running-active (role: Background) (endowments: (null))",
         "expect": {"kind": "app-state", "app_state": "backgroundRunning", "bundle_id": "com.example.app"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copies of macOS runningboardd (role: Background); the iOS wording is the same code; a state of none is system.app-state.runningboard-none"}
    },
    {
      "id": "system.app-state.runningboard-suspended",
      "kind": "app-state",
      "scope": "system",
      "contains": "Calculated state for ",
      "regex": "^Calculated state for (?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>: running-suspended \\(role: [A-Za-z]+\\)",
      "fields": {"bundle_id": "bundle"},
      "set": {"app_state": "backgroundTaskSuspended"},
      "samples": [
        {"message": "Calculated state for app<com.example.app(8A1B2C3D-0000-4000-8000-000000000001)>: running-suspended (role: None) (endowments: (null))",
         "expect": {"kind": "app-state", "app_state": "backgroundTaskSuspended", "bundle_id": "com.example.app"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copies of macOS runningboardd and an iOS write-up (running-suspended (role: None)); a state of none is system.app-state.runningboard-none"}
    },
    {
      "id": "system.app-state.runningboard-none",
      "kind": "app-state",
      "scope": "system",
      "contains": "Calculated state for ",
      "regex": "^Calculated state for (?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>: none \\(role: None\\)",
      "fields": {"bundle_id": "bundle"},
      "set": {"app_state": "terminated"},
      "samples": [
        {"message": "Calculated state for app<com.hightowerai.MobileJarvisNative(BED36376-5A4B-42A9-9620-6AE0BC5F0283)>: none (role: None) (endowments: (null))",
         "expect": {"kind": "app-state", "app_state": "terminated", "bundle_id": "com.hightowerai.MobileJarvisNative"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) lines 121 and 1258, as the process exits: no process. RunningBoard computes none before a launch too: a none while no process of the app runs opens no session (SessionBuilder)"}
    },
    {
      "id": "system.app-state.frontboard-foreground",
      "kind": "app-state",
      "scope": "system",
      "contains": "] Setting process visibility to: Foreground",
      "regex": "\\[(?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>:(?<pid>\\d+)\\] Setting process visibility to: Foreground$",
      "fields": {"bundle_id": "bundle", "app_pid": "pid"},
      "set": {"app_state": "foregroundRunning"},
      "samples": [
        {"message": "[app<com.hightowerai.MobileJarvisNative>:26683] Setting process visibility to: Foreground",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "26683"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) line 136"}
    },
    {
      "id": "system.app-state.frontboard-background",
      "kind": "app-state",
      "scope": "system",
      "contains": "] Setting process visibility to: Background",
      "regex": "\\[(?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>:(?<pid>\\d+)\\] Setting process visibility to: Background$",
      "fields": {"bundle_id": "bundle", "app_pid": "pid"},
      "set": {"app_state": "backgroundRunning"},
      "samples": [
        {"message": "[app<com.example.app>:501] Setting process visibility to: Background",
         "expect": {"kind": "app-state", "app_state": "backgroundRunning", "app_pid": "501"}}
      ],
      "provenance": {"evidence": "binary", "source": "the string \"Setting process visibility to: Background\" is in Apple's XCTest code, which reads it from the log; no pasted iOS line"}
    },
    {
      "id": "system.launch",
      "kind": "launch",
      "scope": "system",
      "contains": "Bootstrapping app",
      "regex": "Bootstrapping (?:app|application)<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>(?::(?<pid>\\d+))? with intent (?<intent>[A-Za-z-]+)",
      "fields": {"bundle_id": "bundle", "app_pid": "pid", "intent": "intent"},
      "samples": [
        {"message": "Bootstrapping app<com.hightowerai.MobileJarvisNative> with intent foreground-interactive",
         "expect": {"kind": "launch", "bundle_id": "com.hightowerai.MobileJarvisNative", "intent": "foreground-interactive"}},
        {"message": "[FBSystemService][0x2a1f] Bootstrapping app<com.example.app(8A1B2C3D-0000-4000-8000-000000000001)> with intent background",
         "expect": {"kind": "launch", "bundle_id": "com.example.app", "intent": "background"}},
        {"message": "Bootstrapping application<com.example.app> with intent foreground-interactive",
         "expect": {"kind": "launch", "bundle_id": "com.example.app"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy of an iOS 18 device (SimbaBuilds/Juniper_React_Native native_crash_logs.md; fixtures/real/juniper-*) line 15 (app<…>, iOS 18); application<…> is iOS 16's spelling (a forensic module's note); \"with intent background\" is a reference shape"}
    },
    {
      "id": "system.launch.suspended-activation",
      "kind": "launch",
      "scope": "system",
      "contains": "Executing suspended-activation immediately: OpenApplication(sceneID:",
      "regex": "OpenApplication\\(sceneID:(?<bundle>[^)]+)-default\\)ForRequester\\((?<requester>[^.)]+)",
      "fields": {"bundle_id": "bundle", "reason": "requester"},
      "set": {"intent": "background"},
      "samples": [
        {"message": "Executing suspended-activation immediately: OpenApplication(sceneID:com.wridz.app-default)ForRequester(dasd.81)",
         "expect": {"kind": "launch", "bundle_id": "com.wridz.app", "intent": "background", "reason": "dasd"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy, iOS 16.3 (transistorsoft/react-native-background-geolocation#1860; fixtures/real/transistorsoft-*) line 10: the app is opened suspended, in the background (if it was still running, it is resumed)"}
    },
    {
      "id": "system.launch.dasd",
      "kind": "launch",
      "scope": "system",
      "contains": "[FBWorkspaceEvent] Executing: <FBWorkspaceEvent: ",
      "regex": "OpenApplication\\(sceneID:(?<bundle>[^)]+)-default\\)ForRequester\\((?<requester>dasd)\\.",
      "fields": {"bundle_id": "bundle", "reason": "requester"},
      "set": {"intent": "background"},
      "samples": [
        {"message": "[FBWorkspaceEvent] Executing: <FBWorkspaceEvent: 0x282e2dbe0; OpenApplication(sceneID:com.wridz.app-default)ForRequester(dasd.81)>",
         "expect": {"kind": "launch", "bundle_id": "com.wridz.app", "intent": "background", "reason": "dasd"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy, iOS 16.3 (transistorsoft/react-native-background-geolocation#1860; fixtures/real/transistorsoft-*) lines 4-9 (one activation logged six times); only dasd's requests are taken as background launches"}
    },
    {
      "id": "system.relaunch",
      "kind": "relaunch",
      "scope": "system",
      "msg": "#Launch client for location event",
      "fields": {"bundle_id": "bundleId", "service": "service", "app_pid": "pid"},
      "require": ["service"],
      "samples": [
        {"message": "{\"msg\":\"#Launch client for location event\", \"bundleId\":\"com.example.app\", \"service\":\"SignificantLocationChange\"}",
         "expect": {"kind": "relaunch", "bundle_id": "com.example.app", "service": "significantChange"}},
        {"message": "{\"msg\":\"#Launch client for location event\", \"bundleId\":\"com.example.app\", \"service\":\"RegionMonitoring\"}",
         "expect": {"kind": "relaunch", "service": "region"}}
      ],
      "provenance": {"evidence": "reference", "source": "never seen; iOS 26.1 locationd logs no service name when it relaunches an app (real-lines.md section 4)"}
    },
    {
      "id": "system.location-subscription",
      "kind": "property",
      "scope": "system",
      "contains": "is subscribing to notification kCLConnectionMessageLocation",
      "regex": "^Client (?<client>\\S+) \\(0x[0-9a-fA-F]+\\) is subscribing to notification kCLConnectionMessageLocation(?![A-Za-z])",
      "fields": {"bundle_id": "client"},
      "set": {"property": "locationUpdates", "value": "1"},
      "samples": [
        {"message": "Client [mobile]com.wridz.app (0xbccd298c0) is subscribing to notification kCLConnectionMessageLocation",
         "expect": {"kind": "property", "bundle_id": "com.wridz.app", "property": "locationUpdates", "value": "1"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy, iOS 16.3 (transistorsoft/react-native-background-geolocation#1860; fixtures/real/transistorsoft-*) line 2 (unsubscribing); subscribing is the same format. kCLConnectionMessageLocationUnavailable is another notification"}
    },
    {
      "id": "system.location-unsubscription",
      "kind": "property",
      "scope": "system",
      "contains": "is unsubscribing to notification kCLConnectionMessageLocation",
      "regex": "^Client (?<client>\\S+) \\(0x[0-9a-fA-F]+\\) is unsubscribing to notification kCLConnectionMessageLocation(?![A-Za-z])",
      "fields": {"bundle_id": "client"},
      "set": {"property": "locationUpdates", "value": "0"},
      "samples": [
        {"message": "Client [mobile]com.wridz.app (0xbccd298c0) is unsubscribing to notification kCLConnectionMessageLocation",
         "expect": {"kind": "property", "bundle_id": "com.wridz.app", "property": "locationUpdates", "value": "0"}}
      ],
      "provenance": {"evidence": "real", "source": "Console.app copy, iOS 16.3 (transistorsoft/react-native-background-geolocation#1860; fixtures/real/transistorsoft-*) line 2 (unsubscribing); subscribing is the same format. kCLConnectionMessageLocationUnavailable is another notification"}
    },
    {
      "id": "system.blue-bar",
      "kind": "blue-bar",
      "scope": "system",
      "msg": "#BackgroundIndicator visibility",
      "fields": {"bundle_id": "bundleId", "visible": "visible", "app_pid": "pid"},
      "require": ["visible"],
      "samples": [
        {"message": "{\"msg\":\"#BackgroundIndicator visibility\", \"bundleId\":\"com.example.app\", \"visible\":1}",
         "expect": {"kind": "blue-bar", "bundle_id": "com.example.app", "visible": "1"}}
      ],
      "provenance": {"evidence": "reference", "source": "no iOS line names an app when the blue bar shows; locationd's strings have no such wording"}
    },
    {
      "id": "system.prompt.shown",
      "kind": "prompt",
      "scope": "system",
      "msg": "Showing #AuthPrompt",
      "fields": {"bundle_id": "client", "prompt_kind": "requestType", "app_pid": "pid"},
      "require": ["prompt_kind"],
      "samples": [
        {"message": "{\"msg\":\"Showing #AuthPrompt\", \"requestType\":5, \"client\":\"92F5C54E-CAEB-44A5-AF60-85E44A017BD2:com.n8henrie.location-objc\"}",
         "expect": {"kind": "prompt", "bundle_id": "com.n8henrie.location-objc", "prompt_kind": "LegacyAlways"}},
        {"message": "{\"msg\":\"Showing #AuthPrompt\", \"requestType\":2, \"Client\":\"icom.example.app:\"}",
         "expect": {"kind": "prompt", "bundle_id": "com.example.app", "prompt_kind": "2"}}
      ],
      "provenance": {"evidence": "real", "source": "macOS 13 locationd (n8henrie/test-location README; fixtures/real/n8henrie-*) and the iOS 26.1 locationd format string (\"Client\"). Logged when locationd decides to prompt: on macOS 13 no dialog appeared. Only requestType 5 has a known name (LegacyAlways); other numbers are kept as written"}
    },
    {
      "id": "system.prompt",
      "kind": "prompt",
      "scope": "system",
      "msg": "#Authorization prompt",
      "fields": {"bundle_id": "bundleId", "prompt_kind": "kind", "prompt_options": "options", "purpose_key": "purposeKey", "app_pid": "pid"},
      "require": ["prompt_kind"],
      "samples": [
        {"message": "{\"msg\":\"#Authorization prompt\", \"bundleId\":\"com.example.app\", \"kind\":\"WhenInUse\", \"options\":\"AllowOnce,WhenInUse,Deny\"}",
         "expect": {"kind": "prompt", "prompt_kind": "WhenInUse", "prompt_options": "AllowOnce,WhenInUse,Deny"}}
      ],
      "provenance": {"evidence": "reference", "source": "never seen; locationd's real prompt wording is Showing #AuthPrompt"}
    },
    {
      "id": "system.prompt-response.allow-once",
      "kind": "prompt-response",
      "scope": "system",
      "msg": "#TemporaryAuth Client has been granted temporary positive status",
      "fields": {"bundle_id": "ClientKey|Client"},
      "set": {"choice": "AllowOnce"},
      "samples": [
        {"message": "{\"msg\":\"#TemporaryAuth Client has been granted temporary positive status\", \"ClientKey\":\"icom.example.app:\"}",
         "expect": {"kind": "prompt-response", "bundle_id": "com.example.app", "choice": "AllowOnce"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string in its prompt-answer handler (onClientUserNotification): the user chose Allow Once (the dialog's ONETIME button sets temporary bit 1 and logs this line, key ClientKey; code index file id 59073882976); no pasted line"}
    },
    {
      "id": "system.prompt-response.upgrade.keep-when-in-use",
      "kind": "prompt-response",
      "scope": "system",
      "msg": "#AuthPrompt User responded to prompt for client",
      "when": {"requestType": ["7", "8"], "response": ["1"]},
      "fields": {"bundle_id": "client|Client"},
      "set": {"choice": "KeepWhenInUse"},
      "samples": [
        {"message": "{\"msg\":\"#AuthPrompt User responded to prompt for client\", \"client\":\"icom.example.app:\", \"requestType\":7, \"response\":1}",
         "expect": {"kind": "prompt-response", "bundle_id": "com.example.app", "choice": "KeepWhenInUse"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:#AuthPrompt User responded to prompt for client, client:%{public, location:escape_only}@, requestType:%{public}d, response:%{public}d} in CLClientManager::onClientUserNotification(CFOptionFlags) (decompiled, code index file id 59073882976); no public device log seen. response is the CFUserNotification button (flags & 3). For the When In Use to Always upgrade dialog (request types 7 and 8) the dialog builder sets the alternate button (1) to Keep Only While Using and the other button (2) to Change to Always, and the handler grants WhenInUse for 1 and Always for 2 in every layout. For the When In Use dialogs (1-5, 11) the button order depends on a feature flag and a stored Not This Time flag the line does not carry, so those answers are read from the line that follows (temporary positive status, the authorization mask), not from this one; 3 is a dismissal (no answer)"}
    },
    {
      "id": "system.prompt-response.upgrade.always",
      "kind": "prompt-response",
      "scope": "system",
      "msg": "#AuthPrompt User responded to prompt for client",
      "when": {"requestType": ["7", "8"], "response": ["2"]},
      "fields": {"bundle_id": "client|Client"},
      "set": {"choice": "Always"},
      "samples": [
        {"message": "{\"msg\":\"#AuthPrompt User responded to prompt for client\", \"client\":\"icom.example.app:\", \"requestType\":8, \"response\":2}",
         "expect": {"kind": "prompt-response", "bundle_id": "com.example.app", "choice": "Always"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd's #AuthPrompt User responded to prompt for client line: which button is which, see system.prompt-response.upgrade.keep-when-in-use; no public device log seen"}
    },
    {
      "id": "system.prompt.always-reminder",
      "kind": "prompt",
      "scope": "system",
      "msg": "#CUN Created client user notification for client",
      "when": {"requestType": ["6"]},
      "fields": {"bundle_id": "Client|client"},
      "set": {"prompt_kind": "AlwaysReminder", "prompt_options": "KeepAlways,WhenInUse"},
      "samples": [
        {"message": "{\"msg\":\"#CUN Created client user notification for client\", \"Client\":\"icom.example.app:\", \"requestType\":6}",
         "expect": {"kind": "prompt", "bundle_id": "com.example.app", "prompt_kind": "AlwaysReminder"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:#CUN Created client user notification for client, Client:%{public, location:escape_only}@, requestType:%{public}d}, logged when the dialog is posted (decompiled, code index file id 59073882976). Request type 6 is the Always reminder (its dialog: LOCATION_REPROMPT_ALWAYS_TITLE, buttons WHENINUSE_ONLY and KEEP_ALWAYS) and has no Showing #AuthPrompt line, so this is its only prompt line; the other types are read from Showing #AuthPrompt (not both: a prompt would count twice)"}
    },
    {
      "id": "system.prompt-response.always-reminder.when-in-use",
      "kind": "prompt-response",
      "scope": "system",
      "contains": "' on #reprompt for ",
      "regex": "^User has selected 'WIU' on #reprompt for (?<bundle>[^,\\s]+), changing authorization\\.$",
      "fields": {"bundle_id": "bundle"},
      "set": {"choice": "WhenInUse"},
      "samples": [
        {"message": "User has selected 'WIU' on #reprompt for icom.example.app:, changing authorization.",
         "expect": {"kind": "prompt-response", "bundle_id": "com.example.app", "choice": "WhenInUse"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string User has selected 'WIU' on #reprompt for %{public}@, changing authorization. in the Always reminder's answer handler (decompiled, code index file id 59073882976): the user chose Change to Only While Using, and WhenInUse is set. Keep Always logs User has authorized continued access for %@ at #reprompt with the app private (<private>), so it names no app and is not read"}
    },
    {
      "id": "system.prompt-response",
      "kind": "prompt-response",
      "scope": "system",
      "msg": "#Authorization prompt response",
      "fields": {"bundle_id": "bundleId", "choice": "choice", "app_pid": "pid"},
      "require": ["choice"],
      "samples": [
        {"message": "{\"msg\":\"#Authorization prompt response\", \"bundleId\":\"com.example.app\", \"choice\":\"AllowOnce\"}",
         "expect": {"kind": "prompt-response", "bundle_id": "com.example.app", "choice": "AllowOnce"}}
      ],
      "provenance": {"evidence": "reference", "source": "never seen; the real answer lines are #AuthPrompt User responded … and #TemporaryAuth …"}
    },
    {
      "id": "system.status",
      "kind": "status-change",
      "scope": "system",
      "msg": "#Authorization changed",
      "fields": {"bundle_id": "bundleId", "status": "status", "reason": "reason", "provisional": "provisional", "temporary": "temporary", "app_pid": "pid"},
      "require": ["status"],
      "samples": [
        {"message": "{\"msg\":\"#Authorization changed\", \"bundleId\":\"com.example.app\", \"status\":\"AuthorizedWhenInUse\", \"reason\":\"Settings\", \"provisional\":0, \"temporary\":0}",
         "expect": {"kind": "status-change", "status": "authorizedWhenInUse", "reason": "Settings", "provisional": "0", "temporary": "0"}}
      ],
      "provenance": {"evidence": "reference", "source": "never seen; locationd's real wording is update client authorization mask (a mask, not a status)"}
    },
    {
      "id": "system.status.mask.not-determined",
      "kind": "status-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"new": ["0"], "authStateHasChanged": ["1"]},
      "fields": {"bundle_id": "Client"},
      "set": {"status": "notDetermined"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":2, \"new\":0, \"oldCC\":0, \"newCC\":0, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":1, \"authStateHasChanged\":1, \"hasAuth\":1}",
         "expect": {"kind": "status-change", "bundle_id": "com.example.app", "status": "notDetermined"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:update client authorization mask, Client:%{public, location:escape_only}@, old:%{public}d, new:%{public}lu, oldCC:%{public}d, newCC:%{public}d, localAuthorizationChange:%{public}d, mayIncreaseAuth:%{public}hhd, authStateHasChanged:%{public}hhd, hasAuth:%{public}hhd} in CLClientManager::updateStaticAuthorizationMaskForClientWithCompensation (decompiled sub_10078B250; code index file ids 10228565558, 58830276652); no public device log seen. Mask 0 is notDetermined: the function's branch for a new mask of 0 logs #ClearingAuthorization updateStaticAuthorizationMask setting to not-determined and removes the Authorization value, whatever mayIncreaseAuth says. Only a real change (authStateHasChanged 1, which the function computes as old != new) is an event. Provisional, temporary and the reason are not in the line and are left empty"}
    },
    {
      "id": "system.status.mask.denied",
      "kind": "status-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"new": ["1"], "authStateHasChanged": ["1"]},
      "regex": "\"mayIncreaseAuth\":\\s*1\\b|\"old\":\\s*[24]\\b",
      "fields": {"bundle_id": "Client"},
      "set": {"status": "denied"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":2, \"new\":1, \"oldCC\":0, \"newCC\":0, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":0, \"authStateHasChanged\":1, \"hasAuth\":1}",
         "expect": {"kind": "status-change", "bundle_id": "com.example.app", "status": "denied"}},
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":0, \"new\":1, \"oldCC\":0, \"newCC\":0, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":1, \"authStateHasChanged\":1, \"hasAuth\":1}",
         "expect": {"kind": "status-change", "status": "denied"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:update client authorization mask, Client:%{public, location:escape_only}@, old:%{public}d, new:%{public}lu, oldCC:%{public}d, newCC:%{public}d, localAuthorizationChange:%{public}d, mayIncreaseAuth:%{public}hhd, authStateHasChanged:%{public}hhd, hasAuth:%{public}hhd} in CLClientManager::updateStaticAuthorizationMaskForClientWithCompensation (decompiled sub_10078B250; code index file ids 10228565558, 58830276652); no public device log seen. Mask 1 is Never (denied): #AuthDatabaseMigration maps the old Authorized=N to 1 (AuthMigrate: N => Never) and passes it to this function. The function stores the new mask only when old >= new or mayIncreaseAuth is 1, so the line is an event only then (old 2 or 4, or mayIncreaseAuth 1), and only when it changed"}
    },
    {
      "id": "system.status.mask.always",
      "kind": "status-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"new": ["4"], "authStateHasChanged": ["1"], "mayIncreaseAuth": ["1"]},
      "fields": {"bundle_id": "Client"},
      "set": {"status": "authorizedAlways"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":2, \"new\":4, \"oldCC\":0, \"newCC\":0, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":1, \"authStateHasChanged\":1, \"hasAuth\":1}",
         "expect": {"kind": "status-change", "bundle_id": "com.example.app", "status": "authorizedAlways"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:update client authorization mask, Client:%{public, location:escape_only}@, old:%{public}d, new:%{public}lu, oldCC:%{public}d, newCC:%{public}d, localAuthorizationChange:%{public}d, mayIncreaseAuth:%{public}hhd, authStateHasChanged:%{public}hhd, hasAuth:%{public}hhd} in CLClientManager::updateStaticAuthorizationMaskForClientWithCompensation (decompiled sub_10078B250; code index file ids 10228565558, 58830276652); no public device log seen. Mask 4 is Always: #AuthDatabaseMigration maps Authorized=Y to 4 (AuthMigrate: Y => Always) and logs that a mask with (mask & 6) == 4 contains Always but not WhenInUse. An increase is stored only with mayIncreaseAuth 1, so only such a line is an event. Mask 2 (WhenInUse) is not read: locationd keeps provisional Always as mask 2 plus a separate ProvisionalMonitoring flag the line does not carry, so 2 may be WhenInUse or provisional Always; other values (combinations) are not shown in the code"}
    },
    {
      "id": "system.accuracy.compensation.full",
      "kind": "accuracy-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"newCC": ["1"], "oldCC": ["2"]},
      "fields": {"bundle_id": "Client"},
      "set": {"accuracy": "Full", "temporary": "0"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":2, \"new\":2, \"oldCC\":2, \"newCC\":1, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":0, \"authStateHasChanged\":0, \"hasAuth\":1}",
         "expect": {"kind": "accuracy-change", "bundle_id": "com.example.app", "accuracy": "full", "temporary": "0"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:update client authorization mask, …, oldCC:%{public}d, newCC:%{public}d, …, mayIncreaseAuth:%{public}hhd, …} (CLClientManager::updateStaticAuthorizationMaskForClientWithCompensation, code index file id 10228565558); no public device log seen. newCC is the corrective compensation (locationd's reduced accuracy): Settings' Precise Location switch sends 1 when on and 2 when off (PUILocationServicesAuthorizationLevelController _setPreciseLocationEnabled:, code index file ids 16389835890, 10159970502), and the function stores a new value only when it is not 0 and (oldCC >= newCC or mayIncreaseAuth is 1). So 1 is full and 2 reduced accuracy; 0 gives none. A line whose status changed is read as the status change (system.status.mask.*), so these patterns come after them"}
    },
    {
      "id": "system.accuracy.compensation.first.full",
      "kind": "accuracy-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"newCC": ["1"], "oldCC": ["0"], "mayIncreaseAuth": ["1"]},
      "fields": {"bundle_id": "Client"},
      "set": {"accuracy": "Full", "temporary": "0"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":0, \"new\":2, \"oldCC\":0, \"newCC\":1, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":1, \"authStateHasChanged\":1, \"hasAuth\":1}",
         "expect": {"kind": "accuracy-change", "bundle_id": "com.example.app", "accuracy": "full", "temporary": "0"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd's update client authorization mask line, its compensation (oldCC, newCC, mayIncreaseAuth): what the values mean and when a new one is stored, see system.accuracy.compensation.full; no public device log seen"}
    },
    {
      "id": "system.accuracy.compensation.first.reduced",
      "kind": "accuracy-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"newCC": ["2"], "oldCC": ["0"], "mayIncreaseAuth": ["1"]},
      "fields": {"bundle_id": "Client"},
      "set": {"accuracy": "Reduced", "temporary": "0"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":0, \"new\":2, \"oldCC\":0, \"newCC\":2, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":1, \"authStateHasChanged\":1, \"hasAuth\":1}",
         "expect": {"kind": "accuracy-change", "bundle_id": "com.example.app", "accuracy": "reduced", "temporary": "0"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd's update client authorization mask line, its compensation (oldCC, newCC, mayIncreaseAuth): what the values mean and when a new one is stored, see system.accuracy.compensation.full; no public device log seen"}
    },
    {
      "id": "system.accuracy.compensation.reduced",
      "kind": "accuracy-change",
      "scope": "system",
      "msg": "update client authorization mask",
      "when": {"newCC": ["2"], "oldCC": ["1"], "mayIncreaseAuth": ["1"]},
      "fields": {"bundle_id": "Client"},
      "set": {"accuracy": "Reduced", "temporary": "0"},
      "samples": [
        {"message": "{\"msg\":\"update client authorization mask\", \"Client\":\"icom.example.app:\", \"old\":4, \"new\":4, \"oldCC\":1, \"newCC\":2, \"localAuthorizationChange\":1, \"mayIncreaseAuth\":1, \"authStateHasChanged\":0, \"hasAuth\":1}",
         "expect": {"kind": "accuracy-change", "accuracy": "reduced", "temporary": "0"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd's update client authorization mask line, its compensation (oldCC, newCC, mayIncreaseAuth): what the values mean and when a new one is stored, see system.accuracy.compensation.full; no public device log seen"}
    },
    {
      "id": "system.accuracy.temporary-precise-answer",
      "kind": "accuracy-change",
      "scope": "system",
      "msg": "Temporary relief from #compensation response",
      "when": {"TempPrecise": ["YES"]},
      "fields": {"bundle_id": "ClientKey|Client"},
      "set": {"accuracy": "Full", "temporary": "1"},
      "samples": [
        {"message": "{\"msg\":\"Temporary relief from #compensation response\", \"ClientKey\":\"icom.example.app:\", \"TempPrecise\":\"YES\"}",
         "expect": {"kind": "accuracy-change", "bundle_id": "com.example.app", "accuracy": "full", "temporary": "1"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string {msg%{public}.0s:Temporary relief from #compensation response, ClientKey:%{public, location:escape_only}@, TempPrecise:%{public, location:escape_only}s} in onClientUserNotification (code index file id 59073882976), the answer to requestTemporaryFullAccuracyAuthorization (request type 9): YES exactly when the user pressed the dialog's TEMPORARY_PRECISE_YES button, which sets the temporary precise bit. The purpose key is not in the line (locationd checks it against the Info.plist before it shows the dialog); NO grants nothing and is not an event"}
    },
    {
      "id": "system.accuracy",
      "kind": "accuracy-change",
      "scope": "system",
      "msg": "#Accuracy authorization changed",
      "fields": {"bundle_id": "bundleId", "accuracy": "accuracy", "temporary": "temporary", "purpose_key": "purposeKey", "reason": "reason", "app_pid": "pid"},
      "require": ["accuracy"],
      "samples": [
        {"message": "{\"msg\":\"#Accuracy authorization changed\", \"bundleId\":\"com.example.app\", \"accuracy\":\"Full\", \"temporary\":1, \"purposeKey\":\"Delivery\"}",
         "expect": {"kind": "accuracy-change", "accuracy": "full", "temporary": "1", "purpose_key": "Delivery"}},
        {"message": "{\"msg\":\"#Accuracy authorization changed\", \"bundleId\":\"com.example.app\", \"accuracy\":\"Reduced\", \"temporary\":0, \"reason\":\"Expired\"}",
         "expect": {"kind": "accuracy-change", "accuracy": "reduced", "reason": "Expired"}}
      ],
      "provenance": {"evidence": "reference", "source": "never seen; locationd calls reduced accuracy #compensation"}
    },
    {
      "id": "app.live-updates",
      "kind": "call",
      "scope": "app",
      "msg": "CLLocationUpdate",
      "when": {"event": ["activity"], "_cmd": ["liveUpdates", "liveUpdates:"]},
      "set": {"call": "CLLocationUpdate.liveUpdates", "service": "standard"},
      "samples": [
        {"message": "{\"msg\":\"CLLocationUpdate\", \"event\":\"activity\", \"_cmd\":\"liveUpdates\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "call": "CLLocationUpdate.liveUpdates", "service": "standard"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"): CLLocationUpdate.liveUpdates (iOS 17) starts standard updates; no public line"}
    },
    {
      "id": "app.live-updates.stop",
      "kind": "call",
      "scope": "app",
      "msg": "CLLocationUpdate",
      "when": {"event": ["activity"], "_cmd": ["stop"]},
      "set": {"call": "CLLocationUpdate.stop", "service": "standard"},
      "samples": [
        {"message": "{\"msg\":\"CLLocationUpdate\", \"event\":\"activity\", \"_cmd\":\"stop\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "call": "CLLocationUpdate.stop", "service": "standard"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"); no public line"}
    },
    {
      "id": "app.live-update",
      "kind": "location",
      "scope": "app",
      "msg": "#CLLocationUpdate yielding update",
      "fields": {"horizontal_accuracy": "location.horizontalAccuracy", "latitude": "location.lat", "longitude": "location.lon", "location_private": "location"},
      "samples": [
        {"message": "{\"msg\":\"#CLLocationUpdate yielding update\", \"self\":\"0x1038ead60\", \"location\":{\"lat\":48.8584, \"lon\":2.2945, \"horizontalAccuracy\":5, \"timestamp\":810124690.49}, \"isStationary\":0}",
         "expect": {"kind": "location", "horizontal_accuracy": "5", "latitude": "48.8584", "location_private": "0"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"): each CLLocationUpdate is a delivery by the standard service; no public line"}
    },
    {
      "id": "app.background-activity-session",
      "kind": "call",
      "scope": "app",
      "msg": "CLBackgroundActivitySession",
      "when": {"event": ["activity"], "_cmd": ["backgroundActivitySession"]},
      "set": {"call": "CLBackgroundActivitySession.backgroundActivitySession"},
      "samples": [
        {"message": "{\"msg\":\"CLBackgroundActivitySession\", \"event\":\"activity\", \"_cmd\":\"backgroundActivitySession\", \"self\":\"0x2810a4c60\"}",
         "expect": {"kind": "call", "call": "CLBackgroundActivitySession.backgroundActivitySession"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2; the iOS 26.1 CoreLocation binary logs CLBackgroundActivitySession #backgroundActivitySession activity lines, whose rendered keys are not known"}
    },
    {
      "id": "app.background-activity-session.invalidate",
      "kind": "call",
      "scope": "app",
      "msg": "CLBackgroundActivitySession",
      "when": {"event": ["activity"], "_cmd": ["invalidate"]},
      "set": {"call": "CLBackgroundActivitySession.invalidate"},
      "samples": [
        {"message": "{\"msg\":\"CLBackgroundActivitySession\", \"event\":\"activity\", \"_cmd\":\"invalidate\", \"self\":\"0x2810a4c60\"}",
         "expect": {"kind": "call", "call": "CLBackgroundActivitySession.invalidate"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"); no public line"}
    },
    {
      "id": "app.service-session",
      "kind": "call",
      "scope": "app",
      "msg": "CLServiceSession",
      "when": {"event": ["activity"], "_cmd": ["sessionRequiringAuthorization:", "sessionRequiringAuthorization:fullAccuracyPurposeKey:"]},
      "fields": {"status": "authorization", "purpose_key": "fullAccuracyPurposeKey"},
      "set": {"call": "CLServiceSession.sessionRequiringAuthorization:"},
      "samples": [
        {"message": "{\"msg\":\"CLServiceSession\", \"event\":\"activity\", \"_cmd\":\"sessionRequiringAuthorization:\", \"authorization\":\"Always\", \"self\":\"0x2810a4c90\"}",
         "expect": {"kind": "call", "call": "CLServiceSession.sessionRequiringAuthorization:", "status": "authorizedAlways"}},
        {"message": "{\"msg\":\"CLServiceSession\", \"event\":\"activity\", \"_cmd\":\"sessionRequiringAuthorization:fullAccuracyPurposeKey:\", \"authorization\":\"WhenInUse\", \"fullAccuracyPurposeKey\":\"Delivery\", \"self\":\"0x2810a4c90\"}",
         "expect": {"kind": "call", "status": "authorizedWhenInUse", "purpose_key": "Delivery"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"): the declared authorization is stored in status; no public line"}
    },
    {
      "id": "app.service-session.invalidate",
      "kind": "call",
      "scope": "app",
      "msg": "CLServiceSession",
      "when": {"event": ["activity"], "_cmd": ["invalidate"]},
      "set": {"call": "CLServiceSession.invalidate"},
      "samples": [
        {"message": "{\"msg\":\"CLServiceSession\", \"event\":\"activity\", \"_cmd\":\"invalidate\", \"self\":\"0x2810a4c90\"}",
         "expect": {"kind": "call", "call": "CLServiceSession.invalidate"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"); no public line"}
    },
    {
      "id": "app.monitor-condition",
      "kind": "call",
      "scope": "app",
      "msg": "CLMonitor",
      "when": {"event": ["activity"], "_cmd": ["addConditionForMonitoring:identifier:", "addConditionForMonitoring:identifier:assumedState:"]},
      "set": {"call": "CLMonitor.addConditionForMonitoring:identifier:", "service": "monitor"},
      "samples": [
        {"message": "{\"msg\":\"CLMonitor\", \"event\":\"activity\", \"_cmd\":\"addConditionForMonitoring:identifier:\", \"condition\":\"CircularGeographicCondition\", \"identifier\":\"home\", \"self\":\"0x2810a4cc0\"}",
         "expect": {"kind": "call", "call": "CLMonitor.addConditionForMonitoring:identifier:", "service": "monitor"}}
      ],
      "provenance": {"evidence": "reference", "source": "rules model v2 (log-formats.md \"Version 2 families\"); no public line"}
    },
    {
      "id": "app.main-thread-warning",
      "kind": "main-thread-warning",
      "scope": "app",
      "contains": "This method can cause UI unresponsiveness if invoked on the main thread",
      "samples": [
        {"message": "[CoreLocation] This method can cause UI unresponsiveness if invoked on the main thread. Instead, consider waiting for the -locationManagerDidChangeAuthorization: callback and checking authorizationStatus first.",
         "expect": {"kind": "main-thread-warning"}}
      ],
      "provenance": {"evidence": "real", "source": "Xcode 14+ console on iOS 16+, pasted in many bug reports (log-formats.md \"Version 2 families\"); a timeline line, read by no rule"}
    },
    {
      "id": "system.temporary-auth.lapse",
      "kind": "status-change",
      "scope": "system",
      "msg": "#TemporaryAuth Client has dropped below in-use-ness threshold, losing WIU status",
      "fields": {"bundle_id": "ClientKeyPath|ClientKey|Client"},
      "set": {"reason": "Expired", "temporary": "1"},
      "samples": [
        {"message": "{\"msg\":\"#TemporaryAuth Client has dropped below in-use-ness threshold, losing WIU status\", \"ClientKeyPath\":\"icom.example.app:\"}",
         "expect": {"kind": "status-change", "bundle_id": "com.example.app", "reason": "Expired", "temporary": "1"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string \"{msg%{public}.0s:#TemporaryAuth Client has dropped below in-use-ness threshold, losing WIU status, ClientKeyPath:%{public, location:escape_only}@}\" (decompiled locationd in the public code index); no pasted line. A temporary When In Use grant lapsed: no status is named"}
    },
    {
      "id": "system.location-button",
      "kind": "status-change",
      "scope": "system",
      "msg": "#TemporaryAuth Explicit temporary authorization request received",
      "when": {"Granted": ["1"], "UsingLocationButton": ["1"]},
      "fields": {"bundle_id": "Client|ClientKey"},
      "set": {"status": "AuthorizedWhenInUse", "temporary": "1", "reason": "LocationButton"},
      "samples": [
        {"message": "{\"msg\":\"#TemporaryAuth Explicit temporary authorization request received\", \"Client\":\"icom.example.app:\", \"Granted\":1, \"UsingLocationButton\":1, \"LocationButtonUseMode\":1}",
         "expect": {"kind": "status-change", "bundle_id": "com.example.app", "status": "authorizedWhenInUse", "temporary": "1", "reason": "LocationButton"}}
      ],
      "provenance": {"evidence": "binary", "source": "iOS 26.1 locationd format string (#TemporaryAuth Explicit temporary authorization request received, Client, Granted, UsingLocationButton, LocationButtonUseMode; log-formats.md \"Version 2 families\"); no pasted line. Granted:0 grants nothing and is no event"}
    },
    {
      "id": "system.location-arrow",
      "kind": "location-arrow",
      "scope": "system",
      "msg": "#sbim client arrow state changed",
      "fields": {"bundle_id": "clientKey|Client", "reason": "newArrowState"},
      "samples": [
        {"message": "{\"msg\":\"#sbim client arrow state changed\", \"clientKey\":\"com.apple.locationd.bundle-/System/Library/LocationBundles/TraceHarvest.bundle\", \"entityClass\":\"SystemService\", \"oldArrowState\":\"ReceivingLocationInformation\", \"newArrowState\":\"Off\", \"dueToDeauthorization\":0}",
         "expect": {"kind": "location-arrow", "reason": "Off"}}
      ],
      "provenance": {"evidence": "real", "source": "iOS 14.4 locationd line for a system service (log-formats.md \"Version 2 families\"; binary keys Client, entityClass, oldArrowState, newArrowState, dueToDeauthorization). Whether the arrow stands for the background indicator is not established: no rule reads it"}
    },
    {
      "id": "system.install",
      "kind": "install",
      "scope": "system",
      "contains": "uccessful for (",
      "regex": "-\\[MIInstaller [^\\]]+\\]: (?i:install successful for) \\((?<type>[A-Za-z]+):(?<bundle>[^)\\s]+)\\)",
      "fields": {"bundle_id": "bundle", "reason": "type"},
      "require": ["bundle_id"],
      "samples": [
        {"message": "-[MIInstaller performInstallationWithError:]: Install Successful for (Placeholder:org.whispersystems.signal); Staging: 0.01s; Waiting: 0.00s; Preflight/Patch: 0.00s, Verifying: 0.01s; Overall: 0.14s",
         "expect": {"kind": "install", "bundle_id": "org.whispersystems.signal", "reason": "Placeholder"}},
        {"message": "-[MIInstaller performInstallationWithError:]: Install Successful for (Customer:org.whispersystems.signal); Staging: 0.03s; Waiting: 0.00s; Preflight/Patch: 0.06s, Verifying: 1.03s; Overall: 1.27s",
         "expect": {"kind": "install", "bundle_id": "org.whispersystems.signal", "reason": "Customer"}},
        {"message": "0x16f5ef000 -[MIInstaller performInstallationWithError:]: Install Successful for (Customer:com.example.app) [Distributor: com.apple.AppStore]; Staging: 0.03s; Waiting: 0.00s; Preflight/Patch: 0.06s, Verifying: 1.03s; Overall: 1.27s",
         "expect": {"kind": "install", "bundle_id": "com.example.app", "reason": "Customer"}}
      ],
      "provenance": {"evidence": "real", "source": "sysdiagnose MobileInstallation log, iOS 16.0 (FCSC 2025 iForensics; fixtures/real/fcsc2025-*) lines 5 and 14, and a 2025 mobile_installation.log; newer builds add [Distributor: …]"}
    },
    {
      "id": "system.uninstall",
      "kind": "uninstall",
      "scope": "system",
      "contains": "Uninstalling identifier ",
      "regex": "-\\[MIUninstaller [^\\]]+\\]: Uninstalling identifier (?<bundle>[A-Za-z0-9._-]+)",
      "fields": {"bundle_id": "bundle"},
      "require": ["bundle_id"],
      "samples": [
        {"message": "-[MIUninstaller _uninstallBundleWithIdentity:linkedToChildren:waitForDeletion:uninstallReason:temporaryReference:wasLastReference:error:]: Uninstalling identifier org.whispersystems.signal",
         "expect": {"kind": "uninstall", "bundle_id": "org.whispersystems.signal"}}
      ],
      "provenance": {"evidence": "real", "source": "sysdiagnose MobileInstallation log, iOS 16.0 (fixtures/real/fcsc2025-* line 15); the Destroying container lines after it are not further uninstalls"}
    }
  ]
}
"""#
}
