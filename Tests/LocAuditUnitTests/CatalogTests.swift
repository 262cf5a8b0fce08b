import Foundation
import Testing
@testable import LocAuditNormalise

@Suite struct CatalogTests {
    @Test("every built-in pattern's samples parse to the event they claim", arguments: Catalog.builtin.patterns.map(\.id))
    func builtinSamples(id: String) throws {
        let catalog = Catalog.builtin
        let pattern = try #require(catalog.patterns.first { $0.id == id })
        #expect(!pattern.samples.isEmpty, "\(id) has no sample")
        let failures = catalog.checkSamples().filter { $0.hasPrefix(id + " ") || $0.hasPrefix(id + ":") }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// locationd's lines whose values the binary shows mean nothing the audit reads: the
    /// answer to a When In Use dialog by its button number (the order depends on flags the
    /// line lacks), a dismissal, another dialog posted, a compensation the function does not
    /// store (a rise without mayIncreaseAuth), a declined temporary precise prompt.
    @Test("Apple's wording is read only where the binary shows what the values mean", arguments: [
            ##"{"msg":"#AuthPrompt User responded to prompt for client", "client":"icom.example.app:", "requestType":2, "response":1}"##,
            ##"{"msg":"#AuthPrompt User responded to prompt for client", "client":"icom.example.app:", "requestType":8, "response":3}"##,
            ##"{"msg":"#CUN Created client user notification for client", "Client":"icom.example.app:", "requestType":2}"##,
            ##"{"msg":"update client authorization mask", "Client":"icom.example.app:", "old":0, "new":2, "oldCC":0, "newCC":1, "localAuthorizationChange":1, "mayIncreaseAuth":0, "authStateHasChanged":1, "hasAuth":1}"##,
            ##"{"msg":"update client authorization mask", "Client":"icom.example.app:", "old":4, "new":4, "oldCC":1, "newCC":2, "localAuthorizationChange":1, "mayIncreaseAuth":0, "authStateHasChanged":0, "hasAuth":1}"##,
            ##"{"msg":"Temporary relief from #compensation response", "ClientKey":"icom.example.app:", "TempPrecise":"NO"}"##,
    ])
    func appleWordingNotRead(message: String) {
        guard case .event(let event) = Catalog.builtin.recognise(message, process: "locationd") else { return }
        Issue.record("recognised as \(event.kind.rawValue) by \(event.pattern)")
    }

    /// An app's process ends (issue 26): SpringBoard's exit with a crash signal and launchd's
    /// `Service exited due to …` of an app's job are crashes; the same exit told again, an
    /// exit without a crash signal (a kill, a voluntary one) and another daemon's exit are not.
    /// RunningBoard's `none` is no crash: the app's state, terminated (no process).
    @Test("process ends: crash signals are crashes, the other exits are not", arguments: [
            ("[app<com.example.app>:501] Process exited: <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGSEGV(11)>>.", "SpringBoard", "crash 501 SIGSEGV(11)"),
            ("[application<com.example.app>:501] Process exited: <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGABRT(6)>>.", "SpringBoard", "crash 501 SIGABRT(6)"),
            ("(UIKitApplication:com.example.app[0x8e1c][64]) Service exited due to Segmentation fault: 11", "launchd", "crash - Segmentation fault: 11"),
            ("Process exited: <FBApplicationProcess: 0x86622f300; app<com.example.app>:501(vA570D)> -> <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGABRT(6)>>", "SpringBoard", "nothing"),
            ("[app<com.example.app>:501] Process exited: <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGKILL(9)>>.", "SpringBoard", "nothing"),
            ("[app<com.example.app>:501] Process exited: <RBSProcessExitContext| voluntary>.", "SpringBoard", "nothing"),
            ("[app<com.example.app>:501] Process exited: <RBSProcessExitContext| specific, status:<RBSProcessExitStatus| domain:signal(2) code:SIGSEGV(11)>>.", "locationd", "nothing"),
            ("(com.apple.WebKit.Networking.A546008E-07AF-4FFC-8FF8-D8FD260359D9[33438]): Service exited with abnormal code: 1", "com.apple.xpc.launchd", "nothing"),
            ("Calculated state for app<com.example.app(8A1B2C3D-0000-4000-8000-000000000001)>: none (role: None) (endowments: (null))", "runningboardd", "app-state - -"),
    ])
    func processEnds(message: String, process: String, expected: String) {
        var got = "nothing"
        if case .event(let event) = Catalog.builtin.recognise(message, process: process) {
            let pid = event[.appPid].map { "\($0)" } ?? "-"
            got = "\(event.kind.rawValue) \(pid) \(event[.reason].map { "\($0)" } ?? "-")"
            #expect(event[.bundleId].map { "\($0)" } == "com.example.app")
        }
        #expect(got == expected)
    }

    @Test func patternIdentifiersAreUnique() {
        let ids = Catalog.builtin.patterns.map(\.id)
        #expect(Set(ids).count == ids.count)
    }

    @Test func aSampleThatDoesNotMatchItsClaimIsReported() throws {
        let file = CatalogFile(patterns: [CatalogPattern(
            id: "user.bar", kind: .blueBar, scope: .system, msg: "#Indicator", contains: nil, regex: nil, when: nil,
            fields: ["visible": "shown"], set: nil,
            samples: [CatalogSample(message: ##"{"msg":"#Indicator", "shown":0}"##, expect: ["visible": "1"])])])
        let catalog = try Catalog(patterns: file.patterns)
        #expect(catalog.checkSamples() == [#"user.bar sample 1: visible is "0", expected "1""#])
    }

    @Test func aUserCatalogOverridesABuiltInPatternById() throws {
        let ws = try Workspace()
        // Apple reworded the blue-bar message: the user overrides the pattern without recompiling.
        let path = try ws.write("catalog.json", #"""
            {"patterns": [{"id": "system.blue-bar", "kind": "blue-bar", "scope": "system",
              "msg": "#StatusBar location pill", "fields": {"bundle_id": "client", "visible": "shown"},
              "samples": [{"message": "{\"msg\":\"#StatusBar location pill\", \"client\":\"com.example.app\", \"shown\":true}",
                           "expect": {"kind": "blue-bar", "bundle_id": "com.example.app", "visible": "1"}}]}]}
            """#)
        let catalog = try Catalog.load(userFiles: [path])
        #expect(catalog.checkSamples().isEmpty)
        #expect(catalog.patterns.filter { $0.id == "system.blue-bar" }.count == 1)
        guard case .nothing = catalog.recognise(##"{"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}"##) else {
            Issue.record("the old wording should no longer be recognised")
            return
        }
        let log = try ws.write("a.log", syslogLine("Nov 12 12:25:00", "locationd", 64,
                                                   ##"{"msg":"#StatusBar location pill", "client":"com.example.app", "shown":true}"##) + "\n")
        let report = try ws.ingest([log]) { $0.catalogFiles = [path]; $0.parse.year = 2026 }
        #expect(report.files.first?.events == 1)
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'blue-bar' AND visible = 1 AND bundle_id = 'com.example.app'") == 1)
    }

    @Test func aBrokenCatalogFileIsNamedWithWhereItBreaks() throws {
        let ws = try Workspace()
        let path = try ws.write("bad.json", #"{"patterns": [{"id": "x", "kind": "nonsense", "scope": "app", "msg": "m", "samples": []}]}"#)
        #expect {
            try Catalog.load(userFiles: [path])
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("patterns")
        }
    }

    /// A named decoder (`decode`) reads a value that is a daemon's own code (issue 28).
    /// locationd's mask 2 is When In Use or provisional Always (a flag the line lacks), so the
    /// `authorization-mask` decoder gives no status; the `status` column's own reading takes the
    /// number as a CLAuthorizationStatus and would call 2 denied and 4 When In Use.
    @Test func aNamedDecoderReadsADaemonsOwnCode() throws {
        func catalog(_ decode: [String: String]?) throws -> Catalog {
            try Catalog(patterns: [CatalogPattern(
                id: "user.mask", kind: .statusChange, scope: .system, msg: "update client authorization mask",
                contains: nil, regex: nil, when: nil, fields: ["bundle_id": "Client", "status": "new"], decode: decode,
                set: nil, samples: [])])
        }
        func status(_ catalog: Catalog, new: Int) -> ColumnValue? {
            let line = ##"{"msg":"update client authorization mask", "Client":"icom.example.app:", "old":0, "new":"## + "\(new)}"
            guard case .event(let event) = catalog.recognise(line, process: "locationd") else { return .text("no event") }
            return event[.status]
        }
        let decoded = try catalog(["status": "authorization-mask"])
        #expect(status(decoded, new: 0) == .text("notDetermined"))
        #expect(status(decoded, new: 1) == .text("denied"))
        #expect(status(decoded, new: 4) == .text("authorizedAlways"))
        #expect(status(decoded, new: 2) == nil)
        #expect(status(decoded, new: 6) == nil)
        let asStatus = try catalog(nil)
        #expect(status(asStatus, new: 2) == .text("denied"))
        #expect(status(asStatus, new: 4) == .text("authorizedWhenInUse"))
    }

    @Test("a decoder that does not exist, fills another column, or reads no field is named", arguments: [
        (["status": "mask"], "unknown decoder \"mask\" for \"status\"; decoders are authorization-mask, compensation"),
        (["status": "compensation"], "the decoder \"compensation\" fills accuracy, not \"status\""),
        (["accuracy": "compensation"], "\"decode\" names \"accuracy\", which \"fields\" does not read"),
    ])
    func aWrongDecoderIsNamed(decode: [String: String], message: String) {
        #expect {
            try Catalog(patterns: [CatalogPattern(
                id: "user.mask", kind: .statusChange, scope: .system, msg: "m", contains: nil, regex: nil, when: nil,
                fields: ["status": "new"], decode: decode, set: nil, samples: [])])
        } throws: { error in
            "\(error)".contains("pattern \"user.mask\": " + message)
        }
    }

    /// The built-in catalog is a resource in a user file's format: `catalog show` prints that file.
    @Test func theBuiltInCatalogIsItsResourceFile() throws {
        let file = packageRoot.appendingPathComponent("Sources/LocAuditNormalise/Resources/builtin-catalog.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(Catalog.builtinJSON + "\n" == text)
        let decoded = try JSONDecoder().decode(CatalogFile.self, from: Data(text.utf8))
        #expect(decoded.patterns.map(\.id) == Catalog.builtin.patterns.map(\.id))
        #expect(decoded.patterns.contains { $0.decode?["status"] == "authorization-mask" })
    }

    /// The ingest reads a JSON-like candidate's keys into slots (`SlotKeys`); the dictionary's
    /// way, which every other test here was written against, must give the same answer: on
    /// every sample of the catalog, and on each cut short at every length, with its keys in
    /// upper case, repeated, and its nested objects repeated as other values.
    @Test("a message's keys read into slots give what the dictionary gave")
    func slotsReadAsTheDictionary() throws {
        let catalog = Catalog.builtin
        var messages = catalog.patterns.flatMap { $0.samples.map(\.message) }.filter { $0.hasPrefix("{") }
        messages += [
            ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":48.86, "longitude":2.29}, "location":{"longitude":-0.0}}"##,
            ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":48.86, "horizontalAccuracy":5}, "location":"none"}"##,
            ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":48.86, "horizontalAccuracy":5}, "location":"cut"##,
            ##"{"msg":"#CLLocationManager invoking #delegate", "SELECTOR":"locationManager:didUpdateLocations:", "Location":{"LATITUDE":1e400, "Longitude":"2.5"}}"##,
            ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":{"type":"decode failure","raw value":3}}}"##,
            ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":<private>}"##,
            ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":1}, "location":<mask.hash: 'AbC='>}"##,
            ##"{"msg":"#CLIUA AppMonitor notification", "notification":"ForegroundRunning", "pid":855, "bundleId":"com.example.a", "bundleID":"com.example.b"}"##,
            ##"{"msg":"unknown", "pid":12, "ClientKey":"icom.example.app:"}"##,
            ##"{"msg":"#CLIUA\u0020AppMonitor notification", "notification":"ForegroundRunning", "pid":855, "bundleId":"com.example.a"}"##,
            ##"{"pid":12, "bundleid":"com.example.app", "msg":"#CLIUA AppMonitor notification"}"##,
            "{\"msg\":\"x\", \"a\":" + String(repeating: "{\"a\":", count: MessageFields.maxDepth + 1) + "1",
        ]
        var variants: [String] = []
        for message in messages {
            variants.append(message)
            variants.append(String(message.dropLast()) + ", " + String(message.dropFirst()))
            variants.append(message.replacingOccurrences(of: #"":"#, with: #"":"#).uppercased())
            variants.append(message.replacingOccurrences(of: #"":{"#, with: #"":"x", "y":{"#))
            let bytes = Array(message.utf8)
            for n in stride(from: 1, to: bytes.count, by: 3) { variants.append(String(decoding: bytes[..<n], as: UTF8.self)) }
        }
        var slotted = 0
        for message in variants {
            for process in ["locationd", "CityMaps(CoreLocation)"] {
                let bySlots = catalog.recognise(message, utf8: Array(message.utf8), process: process)
                let byDictionary = catalog.recognise(message, utf8: Array(message.utf8), process: process, slots: false)
                #expect(String(describing: bySlots) == String(describing: byDictionary), "\(message)")
                if case .event = bySlots { slotted += 1 }
            }
        }
        #expect(slotted > 100)
        // The groups of the fleet's lines are read into slots.
        for msg in ["#CLLocationManager invoking #delegate", "#CLIUA AppMonitor notification"] {
            #expect(catalog.slotsByMsg[fnv1a(Array(msg.utf8))] != nil, "\(msg)")
        }
    }

    @Test("keys are numbered into slots only where they read as the dictionary read them")
    func slotKeys() throws {
        let link = [["msg"], ["pid"], ["bundleid"], ["clientkey"]]
        let keys = try #require(SlotKeys(paths: link + [["location", "latitude"], ["location", "longitude"], ["selector"], ["pid"]]))
        #expect(keys.count == 8)
        let latitude = try #require(keys.slot(of: ["location", "latitude"]))
        let location = try #require(keys.node(of: ["location"]))
        #expect(keys.slot(of: ["location", "altitude"]) == nil)
        let message = #"{"msg":"m", "Location":{"altitude":3, "LATITUDE":-12.5}, "pid":"7"}"#
        guard case .fields(let slots) = Array(message.utf8).withUnsafeBufferPointer({ MessageFields.read($0, keys: keys) }) else {
            Issue.record("not read")
            return
        }
        #expect(slots[latitude] == .number(-12.5))
        // A key read through holds an object of its wanted keys, as the dictionary held it.
        #expect(SlotKeys.value(of: location, in: slots) == .object(["latitude": .number(-12.5)]))
        #expect(slots[keys.pid] == .string("7"))
        #expect(slots[keys.msg] == .string("m"))
        #expect(SlotKeys(paths: link + [["Location"]]) == nil, "a key not in lower case")
        #expect(SlotKeys(paths: link + [["état"]]) == nil, "a key not ASCII")
        #expect(SlotKeys(paths: [["pid"]]) == nil, "a link's keys are part of every set")
    }

    @Test func tolerantFieldsReadPrivateMaskAndNestedValues() throws {
        let fields = try #require(MessageFields.parse(#"{"msg":"x", "a":<private>, "b":<mask.hash: 'AbC=='>, "c":{"d":5, "e":"f"}, "g":-1.5, "h":true, "i":[1, "]"], "j":"q\"uote"}"#))
        #expect(fields["a"] == .redacted)
        #expect(fields["b"] == .masked("AbC=="))
        #expect(MessageFields.lookup("c.d", in: fields) == .number(5))
        #expect(fields["g"] == .number(-1.5))
        #expect(fields["h"] == .bool(true))
        #expect(fields["j"] == .string("q\"uote"))
        // A message cut short keeps what could be read.
        let cut = try #require(MessageFields.parse(#"{"msg":"x", "pid":12, "bundleId":"com.exa"#))
        #expect(cut["pid"] == .number(12))
    }
}
