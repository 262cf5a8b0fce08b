/// The built-in message catalog, in the same format as a user catalog file.
///
/// `locaudit catalog show` prints it; copy a pattern into your own file (same `id`)
/// to override it when Apple rewords a message. Every sample runs in the test suite.
enum BuiltinCatalog {
    static let json = #"""
{
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
      ]
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
      ]
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
      ]
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
      ]
    },
    {
      "id": "app.property",
      "kind": "property",
      "scope": "app",
      "msg": "state transition",
      "when": {"state": ["LocationManager"]},
      "fields": {"property": "property", "value": "new"},
      "samples": [
        {"message": "{\"msg\":\"state transition\", \"event\":\"state_transition\", \"state\":\"LocationManager\", \"id\":\"0x158e14030\", \"property\":\"updatingLocation\", \"old\":1, \"new\":0}",
         "expect": {"kind": "property", "property": "updatingLocation", "value": "0"}},
        {"message": "{\"msg\":\"state transition\", \"event\":\"state_transition\", \"state\":\"LocationManager\", \"id\":\"0x158e14030\", \"property\":\"allowsBackgroundLocationUpdates\", \"old\":0, \"new\":1}",
         "expect": {"kind": "property", "property": "allowsBackgroundLocationUpdates", "value": "1"}}
      ]
    },
    {
      "id": "app.call",
      "kind": "call",
      "scope": "app",
      "msg": "CLLocationManager",
      "when": {"event": ["activity"]},
      "fields": {"call": "_cmd", "service": "_cmd", "purpose_key": "purposeKey"},
      "samples": [
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"startUpdatingLocation\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "call": "startUpdatingLocation", "service": "standard"}},
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"requestTemporaryFullAccuracyAuthorizationWithPurposeKey:\", \"purposeKey\":\"Delivery\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "call": "requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", "purpose_key": "Delivery"}},
        {"message": "{\"msg\":\"CLLocationManager\", \"event\":\"activity\", \"_cmd\":\"startMonitoringSignificantLocationChanges\", \"self\":\"0x1038ead60\"}",
         "expect": {"kind": "call", "service": "significantChange"}}
      ]
    },
    {
      "id": "app.crash",
      "kind": "crash",
      "scope": "app",
      "contains": "*** Terminating app due to uncaught exception",
      "regex": "reason: '(?<reason>[^']*)'",
      "fields": {"reason": "reason"},
      "samples": [
        {"message": "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)'",
         "expect": {"kind": "crash", "reason": "Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)"}}
      ]
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
      ]
    },
    {
      "id": "system.app-state",
      "kind": "app-state",
      "scope": "system",
      "msg": "RBS #AppMonitor Post Application State Change Notification",
      "fields": {"app_state": "notification", "app_pid": "pid", "bundle_id": "bundleId"},
      "require": ["app_state"],
      "samples": [
        {"message": "{\"msg\":\"RBS #AppMonitor Post Application State Change Notification\", \"notification\":\"ForegroundRunning\", \"pid\":859, \"bundleId\":\"com.hightowerai.MobileJarvisNative\"}",
         "expect": {"kind": "app-state", "app_state": "foregroundRunning", "app_pid": "859", "bundle_id": "com.hightowerai.MobileJarvisNative"}},
        {"message": "{\"msg\":\"RBS #AppMonitor Post Application State Change Notification\", \"notification\":\"Terminated\", \"pid\":859, \"bundleId\":\"com.example.app\"}",
         "expect": {"kind": "app-state", "app_state": "terminated"}}
      ]
    },
    {
      "id": "system.launch",
      "kind": "launch",
      "scope": "system",
      "contains": "Bootstrapping app<",
      "regex": "Bootstrapping app<(?<bundle>[^>(]+)(?:\\([^)]*\\))?>(?::(?<pid>\\d+))? with intent (?<intent>[A-Za-z-]+)",
      "fields": {"bundle_id": "bundle", "app_pid": "pid", "intent": "intent"},
      "samples": [
        {"message": "Bootstrapping app<com.example.app> with intent foreground-interactive",
         "expect": {"kind": "launch", "bundle_id": "com.example.app", "intent": "foreground-interactive"}},
        {"message": "[FBSystemService][0x2a1f] Bootstrapping app<com.example.app(8A1B2C3D-0000-4000-8000-000000000001)> with intent background",
         "expect": {"kind": "launch", "bundle_id": "com.example.app", "intent": "background"}}
      ]
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
      ]
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
      ]
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
      ]
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
      ]
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
      ]
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
      ]
    }
  ]
}
"""#
}
