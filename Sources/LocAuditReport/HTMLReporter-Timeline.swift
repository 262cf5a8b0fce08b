import Foundation
import LocAuditModel
import LocAuditReplay
import LocAuditRules

/// One session's timeline as inline SVG.
struct TimelineDrawing {
    let timeline: SessionTimeline
    let index: Int
    let number: [String: Int]
    let options: ReportOptions
    /// The device as the page names it (`Page.deviceName`), as HTML (its UDID on hover), and its model.
    var deviceName: String
    var deviceHTML: String
    var model: String?
    /// The events the page's evidence section quotes: a prompt whose line is there links to it.
    var quoted: Set<Int64> = []

    static let width = 1000.0
    static let plotLeft = 118.0
    static let plotRight = 985.0
    static let axisHeight = 24.0
    static let laneHeight = 20.0
    static let laneGap = 6.0
    static let findingRow = 24.0

    var span: (start: Int64, end: Int64) {
        (timeline.startUS, max(timeline.endUS, timeline.startUS + 1_000_000))
    }

    func x(_ timeUS: Int64) -> Double {
        let (start, end) = span
        let fraction = Double(timeUS - start) / Double(end - start)
        return Self.plotLeft + min(1, max(0, fraction)) * (Self.plotRight - Self.plotLeft)
    }

    func laneTop(_ i: Int) -> Double { Self.axisHeight + Double(i) * (Self.laneHeight + Self.laneGap) }
    /// The prompts lane, below the state lanes: as many rows as its labels need not to overlap.
    var promptsTop: Double { laneTop(timeline.lanes.count) }
    var promptsHeight: Double {
        let rows = promptLayout.map(\.row).max().map { $0 + 1 } ?? 0
        return rows == 0 ? 0 : Double(rows) * Self.laneHeight + Self.laneGap
    }
    var deliveriesTop: Double { promptsTop + promptsHeight }
    var findingsTop: Double { deliveriesTop + Self.laneHeight + Self.laneGap + 4 }
    var height: Double { findingsTop + Double(timeline.findings.count) * Self.findingRow + 4 }

    /// `com.example.weather on qa-iphone11-13 (iPhone12,1, iOS 13.7), pid 1053`.
    var title: String { "\(timeline.bundleId) on \(deviceName)\(details)" }

    /// What follows the device's name in the title.
    var details: String {
        var t = ""
        let facts = [model, timeline.osVersion.map { "iOS \($0)" }].compactMap { $0 }
        if !facts.isEmpty { t += " (\(facts.joined(separator: ", ")))" }
        if let pid = timeline.pid { t += ", pid \(pid)" }
        return t
    }

    func section() -> String {
        let background = timeline.deliveries.filter { $0.background == true }.count
        var html = """
            <section class="session" id="session-\(index)" aria-labelledby="session-\(index)-title">
            <h3 id="session-\(index)-title">\(HTMLFormat.escape(timeline.bundleId)) on \(deviceHTML)\(HTMLFormat.escape(details))</h3>
            <p>\(HTMLFormat.escape(HTMLFormat.readable(Timestamps.isoUTC(timeline.startUS)))) to \(HTMLFormat.escape(endText)) \
            (ended: \(HTMLFormat.escape(timeline.endReason.rawValue.replacingOccurrences(of: "-", with: " ")))) · \
            \(HTMLFormat.plural(timeline.deliveries.count, "delivery", "deliveries")), \(background) in background</p>

            """
        // In a box that scrolls sideways where the window is too narrow to read the drawing.
        html += "<div class=\"timeline-box\">\n" + svg() + "</div>\n"
        if !timeline.prompts.isEmpty {
            html += "<ul class=\"prompts\">\n"
            for prompt in timeline.prompts { html += "<li>\(HTMLFormat.escape(Self.sentence(prompt)))</li>\n" }
            html += "</ul>\n"
        }
        html += "<ul>\n"
        for f in timeline.findings {
            let n = number[f.fingerprint].map(String.init) ?? "?"
            html += "<li><a href=\"#finding-\(n)\">#\(n) \(HTMLFormat.escape(f.rule))</a> (\(f.severity.rawValue)) at \(HTMLFormat.escape(HTMLFormat.clock(f.timeUS)))</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    /// The end's time, with its date when the session ends on another day.
    var endText: String {
        let start = Timestamps.isoUTC(timeline.startUS), end = Timestamps.isoUTC(timeline.endUS)
        return start.prefix(10) == end.prefix(10) ? HTMLFormat.clock(timeline.endUS) : HTMLFormat.readable(end)
    }

    func svg() -> String {
        let h = height
        var s = """
            <svg class="timeline" viewBox="0 0 \(Int(Self.width)) \(fmt(h))" aria-labelledby="session-\(index)-svg-title">
            <title id="session-\(index)-svg-title">\(HTMLFormat.escape("Timeline of \(title), \(timeline.findings.count) finding\(timeline.findings.count == 1 ? "" : "s")"))</title>

            """
        s += axis(bottom: h - 4)
        for (i, lane) in timeline.lanes.enumerated() { s += draw(lane, top: laneTop(i)) }
        s += promptsLane()
        s += deliveries()
        s += findings()
        return s + "</svg>\n"
    }

    func axis(bottom: Double) -> String {
        let (start, end) = span
        let seconds = Double(end - start) / 1e6
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
        let step = steps.first { seconds / $0 <= 8 } ?? 86400
        let stepUS = Int64(step * 1e6)
        var s = "<g class=\"axis\">\n"
        var t = (start + stepUS - 1) / stepUS * stepUS
        while t <= end {
            let px = fmt(x(t))
            let label = step >= 60 ? String(HTMLFormat.clock(t).prefix(5)) : HTMLFormat.clock(t)
            s += "<line x1=\"\(px)\" y1=\"\(fmt(Self.axisHeight - 6))\" x2=\"\(px)\" y2=\"\(fmt(bottom))\"/>"
            let anchor = x(t) + 28 > Self.width ? "end" : "middle"
            s += "<text x=\"\(px)\" y=\"12\" text-anchor=\"\(anchor)\">\(label)</text>\n"
            t += stepUS
        }
        return s + "</g>\n"
    }

    func draw(_ lane: SessionTimeline.Lane, top: Double) -> String {
        let y = fmt(top), height = fmt(Self.laneHeight)
        var s = "<g class=\"lane\">\n<text class=\"lane-name\" x=\"4\" y=\"\(fmt(top + 14))\">\(HTMLFormat.escape(lane.kind.rawValue))</text>\n"
        s += "<rect class=\"lane-bg\" x=\"\(fmt(Self.plotLeft))\" y=\"\(y)\" width=\"\(fmt(Self.plotRight - Self.plotLeft))\" height=\"\(height)\" rx=\"3\"/>\n"
        for interval in lane.intervals {
            let left = x(interval.startUS), right = x(interval.endUS)
            let width = max(1.5, right - left)
            let value = interval.value ?? "unknown"
            var tip = "\(lane.kind.rawValue): \(value), \(HTMLFormat.clock(interval.startUS)) to \(HTMLFormat.clock(interval.endUS))"
            switch interval.origin {
            case .observed?: tip += ", as a line of this session says"
            case .modelled?: tip += ", modelled by the replay: no line of this session says it (carried over from the session before, or what iOS does at a relaunch)"
            case nil: break
            }
            for c in interval.contradictions.prefix(5) { tip += "; a line says \(c.value) at \(HTMLFormat.clock(c.timeUS))" }
            if interval.contradictions.count > 5 { tip += "; and \(interval.contradictions.count - 5) more lines" }
            let origin = interval.origin.map { " \($0.rawValue)" } ?? ""
            // Unknown is hatched: no line says it, and no default stands in for it (accuracy
            // before iOS 14 is not unknown: there is none).
            let state = interval.state.map(Self.stateClass) ?? (interval.value == nil && isAbsent(lane.kind) ? "absent" : "unknown")
            s += "<g class=\"interval \(state)\(origin)\"><title>\(HTMLFormat.escape(tip))</title>\n"
            s += "<rect x=\"\(fmt(left))\" y=\"\(y)\" width=\"\(fmt(width))\" height=\"\(height)\"/>\n"
            // The longest label that fits: the value, what kind of value it is, what lines say instead.
            var labels = [interval.value ?? missingLabel(lane.kind)]
            if interval.origin == .modelled {
                let said = Array(Set(interval.contradictions.map(\.value))).sorted()
                if !said.isEmpty { labels.insert(labels[0] + " (modelled; the log says \(said.joined(separator: ", ")))", at: 0) }
                labels.insert(labels.last! + " (modelled)", at: labels.count - 1)
            }
            if let label = labels.first(where: { width >= Double($0.count) * 6 + 8 }) {
                s += "<text class=\"value\" x=\"\(fmt(left + 4))\" y=\"\(fmt(top + 14))\">\(HTMLFormat.escape(label))</text>\n"
            }
            s += "</g>\n"
            // Where a line says another value than the replay holds: a mark at its time.
            for c in interval.contradictions {
                let cx = x(c.timeUS)
                s += "<path class=\"contradiction\" d=\"M\(fmt(cx - 5)) \(fmt(top)) L\(fmt(cx + 5)) \(fmt(top)) L\(fmt(cx)) \(fmt(top + 8)) Z\">"
                s += "<title>\(HTMLFormat.escape("a line says \(c.value) at \(HTMLFormat.clock(c.timeUS)); the replay keeps \(value)"))</title></path>\n"
            }
        }
        return s + "</g>\n"
    }

    /// What an interval no line has spoken about says: unknown, except accuracy before iOS
    /// 14, which does not exist.
    func missingLabel(_ kind: SessionTimeline.LaneKind) -> String {
        isAbsent(kind) ? "none before iOS 14" : "unknown"
    }

    /// Whether the lane's value does not exist on this iOS (accuracy before iOS 14).
    func isAbsent(_ kind: SessionTimeline.LaneKind) -> Bool {
        guard kind == .accuracy, let major = IOSVersion(timeline.osVersion)?.major else { return false }
        return major < 14
    }

    /// The CSS class of a lane's state (`auth-when-in-use`, `app-background`), keyed by the
    /// state, not by its label: its colours are in the page's style sheet, one rule per state.
    static func stateClass(_ state: SessionTimeline.LaneState) -> String {
        let prefix: String
        switch state.lane {
        case .appState: prefix = "app"
        case .inUse: prefix = "use"
        case .authorization: prefix = "auth"
        case .accuracy: prefix = "acc"
        case .blueBar: prefix = "bar"
        case .services: prefix = "svc"
        case .locationArrow: prefix = "arrow"
        }
        return prefix + "-" + state.rawValue
    }

    // MARK: Prompts

    /// How the page names a prompt's kind: `Always`, `upgrade to Always`; another as written.
    static func promptName(_ kind: String?) -> String {
        switch kind.map(PromptKind.init(rawValue:)) {
        case .whenInUse?: return "When In Use"
        case .always?: return "Always"
        case .alwaysUpgrade?: return "upgrade to Always"
        case .temporaryFullAccuracy?: return "temporary precise location"
        case .legacyAlways?: return "Always (legacy)"
        case .alwaysReminder?: return "Always reminder"
        case let other?: return other.rawValue
        case nil: return "authorization"
        }
    }

    /// How the page names an answer: the button's words.
    static func choiceName(_ choice: String) -> String {
        switch PromptChoice(rawValue: choice) {
        case .allowOnce?: return "Allow Once"
        case .whenInUse?: return "While Using"
        case .always?: return "Always"
        case .keepWhenInUse?: return "Keep Only While Using"
        case .keepAlways?: return "Keep Always"
        case .allow?: return "Allow"
        case .deny?: return "Don't Allow"
        case nil: return choice
        }
    }

    /// `Always prompt → While Using`: the short label drawn in the lane.
    static func label(_ p: SessionTimeline.Prompt) -> String {
        let answer = p.answer.map { $0.choice.map { choiceName($0.rawValue) } ?? "an answer outside the vocabulary" }
        guard let shown = p.shown else { return "answered \(answer ?? "?") (no prompt line)" }
        return "\(promptName(shown.kind)) prompt" + (answer.map { " → \($0)" } ?? ", no answer")
    }

    /// The whole story of a prompt, for its tooltip and the list under the drawing.
    static func sentence(_ p: SessionTimeline.Prompt) -> String {
        var text: String
        if let shown = p.shown {
            text = "\(promptName(shown.kind)) prompt shown at \(HTMLFormat.clock(shown.timeUS))"
            if !shown.options.isEmpty { text += " (offering \(shown.options.map(choiceName).joined(separator: ", ")))" }
        } else {
            text = "a prompt no line of the session shows"
        }
        if let answer = p.answer {
            let choice = answer.choice.map { choiceName($0.rawValue) } ?? "an answer outside the vocabulary"
            text += ", answered \(choice) at \(HTMLFormat.clock(answer.timeUS))"
        } else {
            text += "; no answer in the session's lines"
        }
        return text
    }

    /// The CSS class of an answer: a grant, a refusal, or unknown.
    static func answerClass(_ answer: SessionTimeline.Prompt.Answer) -> String {
        switch answer.choice {
        case .deny?: return "answer deny"
        case nil: return "answer unknown"
        default: return "answer grant"
        }
    }

    /// Where each prompt's label goes: its row in the lane, its x and anchor. A label goes
    /// right of its prompt, or left where it would run past the plot, on the first row where
    /// it clears the labels before it.
    var promptLayout: [(row: Int, x: Double, anchor: String)] {
        var rowEnds: [Double] = []
        var layout: [(row: Int, x: Double, anchor: String)] = []
        for p in timeline.prompts {
            let width = Double(Self.label(p).count) * 6.2
            let left = x(p.startUS), right = max(x(p.endUS), left + 3)
            var (from, to, anchor, at) = (right + 6, right + 6 + width, "start", right + 6)
            if to > Self.width - 4 { (from, to, anchor, at) = (left - 6 - width, left - 6, "end", left - 6) }
            let start = min(from, left - 6)
            let row = rowEnds.firstIndex { $0 < start } ?? rowEnds.count
            if row == rowEnds.count { rowEnds.append(0) }
            rowEnds[row] = max(to, right) + 8
            layout.append((row, at, anchor))
        }
        return layout
    }

    /// The prompts lane: each prompt from its line to its answer, a mark where it showed and
    /// one where it was answered (green a grant, red a refusal), its label readable beside it.
    /// Drawn only for a session with a prompt or answer line.
    func promptsLane() -> String {
        guard !timeline.prompts.isEmpty else { return "" }
        let top = promptsTop
        var s = "<g class=\"prompts\">\n<text class=\"lane-name\" x=\"4\" y=\"\(fmt(top + 14))\">prompts</text>\n"
        let rows = Int((promptsHeight - Self.laneGap) / Self.laneHeight)
        s += "<rect class=\"lane-bg\" x=\"\(fmt(Self.plotLeft))\" y=\"\(fmt(top))\" width=\"\(fmt(Self.plotRight - Self.plotLeft))\" "
            + "height=\"\(fmt(Double(rows) * Self.laneHeight))\" rx=\"3\"/>\n"
        for (p, place) in zip(timeline.prompts, promptLayout) {
            let mid = top + Double(place.row) * Self.laneHeight + Self.laneHeight / 2
            let left = x(p.startUS), right = max(x(p.endUS), left + 3)
            let link = [p.answer?.event, p.shown?.event].compactMap { $0 }.first { quoted.contains($0) }
            s += link.map { "<a href=\"#ev-\($0)\">" } ?? ""
            s += "<g class=\"prompt\(p.answer == nil ? " unanswered" : "")\"><title>\(HTMLFormat.escape(Self.sentence(p)))</title>\n"
            s += "<rect x=\"\(fmt(left))\" y=\"\(fmt(mid - 6))\" width=\"\(fmt(right - left))\" height=\"12\" rx=\"2\"/>\n"
            if p.shown != nil {
                s += "<path class=\"shown\" d=\"M\(fmt(left)) \(fmt(mid - 7)) L\(fmt(left + 6)) \(fmt(mid)) L\(fmt(left)) \(fmt(mid + 7)) L\(fmt(left - 6)) \(fmt(mid)) Z\"/>\n"
            }
            if let answer = p.answer {
                s += "<circle class=\"\(Self.answerClass(answer))\" cx=\"\(fmt(x(answer.timeUS)))\" cy=\"\(fmt(mid))\" r=\"5\"/>\n"
            }
            s += "<text class=\"prompt-label\" x=\"\(fmt(place.x))\" y=\"\(fmt(mid + 4))\"\(place.anchor == "end" ? " text-anchor=\"end\"" : "")>"
                + "\(HTMLFormat.escape(Self.label(p)))</text>\n"
            s += "</g>\n" + (link == nil ? "" : "</a>\n")
        }
        return s + "</g>\n"
    }

    func deliveries() -> String {
        let top = deliveriesTop
        let cited = Set(timeline.findings.flatMap { $0.evidence.map(\.event) })
        var s = "<g class=\"deliveries\">\n<text class=\"lane-name\" x=\"4\" y=\"\(fmt(top + 14))\">deliveries</text>\n"
        s += "<line x1=\"\(fmt(Self.plotLeft))\" y1=\"\(fmt(top + 10))\" x2=\"\(fmt(Self.plotRight))\" y2=\"\(fmt(top + 10))\" stroke=\"#dee2e6\"/>\n"
        for d in timeline.deliveries {
            let isCited = cited.contains(d.event)
            let kind = d.horizontalAccuracy == nil ? "private" : d.background == true ? "bg" : "fg"
            var tip = "location delivered at \(HTMLFormat.clock(d.timeUS)), "
            tip += d.horizontalAccuracy.map { "±\(oneDecimal($0)) m" } ?? "location hidden by the log"
            tip += d.background.map { $0 ? ", in background" : ", in foreground" } ?? ", app state unknown"
            if options.showCoordinates, let c = d.coordinate {
                tip += ", \(options.coordinate(c.latitude)), \(options.coordinate(c.longitude))"
            }
            if isCited { tip += " (evidence)" }
            s += "<circle class=\"delivery \(kind)\(isCited ? " cited" : "")\" cx=\"\(fmt(x(d.timeUS)))\" cy=\"\(fmt(top + 10))\" r=\"\(isCited ? "5.5" : "4.5")\">"
            s += "<title>\(HTMLFormat.escape(tip))</title></circle>\n"
        }
        return s + "</g>\n"
    }

    func findings() -> String {
        var s = "<g class=\"findings\">\n"
        for (i, f) in timeline.findings.enumerated() {
            let n = number[f.fingerprint].map(String.init) ?? "?"
            let top = findingsTop + Double(i) * Self.findingRow
            let mid = top + 10
            let sev = "sev-\(f.severity.rawValue)"
            let fx = x(f.timeUS)
            s += "<a href=\"#finding-\(n)\">\n<title>\(HTMLFormat.escape("finding #\(n): \(f.rule) (\(f.severity.rawValue)) at \(HTMLFormat.clock(f.timeUS))"))</title>\n"
            s += "<text class=\"lane-name\" x=\"4\" y=\"\(fmt(mid + 4))\">finding #\(n)</text>\n"
            s += "<line class=\"finding-line \(sev)\" x1=\"\(fmt(fx))\" y1=\"\(fmt(Self.axisHeight))\" x2=\"\(fmt(fx))\" y2=\"\(fmt(mid))\"/>\n"
            let times = f.evidence.map(\.timeUS)
            if let first = times.min(), let last = times.max(), last > first {
                s += "<line class=\"finding-span \(sev)\" x1=\"\(fmt(x(first)))\" y1=\"\(fmt(mid))\" x2=\"\(fmt(x(last)))\" y2=\"\(fmt(mid))\"/>\n"
            }
            for e in f.evidence {
                let ex = fmt(x(e.timeUS))
                s += "<line class=\"evidence-tick \(sev)\" x1=\"\(ex)\" y1=\"\(fmt(mid - 6))\" x2=\"\(ex)\" y2=\"\(fmt(mid + 6))\"/>\n"
            }
            s += "<path class=\"\(sev)\" d=\"M\(fmt(fx)) \(fmt(mid - 7)) L\(fmt(fx + 7)) \(fmt(mid + 6)) L\(fmt(fx - 7)) \(fmt(mid + 6)) Z\"/>\n"
            // The label goes where there is room, clear of its own marks: after the last one, or
            // before the first.
            let label = HTMLFormat.escape(f.rule)
            let estimated = Double(f.rule.count) * 7
            let marks = [fx] + f.evidence.map { x($0.timeUS) }
            let after = marks.max()! + 12, before = marks.min()! - 12
            if after + estimated <= Self.width || before - estimated < Self.plotLeft {
                s += "<text class=\"finding-label \(sev)\" x=\"\(fmt(after))\" y=\"\(fmt(mid + 4))\">\(label)</text>\n"
            } else {
                s += "<text class=\"finding-label \(sev)\" x=\"\(fmt(before))\" y=\"\(fmt(mid + 4))\" text-anchor=\"end\">\(label)</text>\n"
            }
            s += "</a>\n"
        }
        return s + "</g>\n"
    }
}

/// An SVG coordinate: one decimal, none when whole (`184.7`, `985`).
private func fmt(_ value: Double) -> String {
    oneDecimal((value * 10).rounded() / 10)
}
