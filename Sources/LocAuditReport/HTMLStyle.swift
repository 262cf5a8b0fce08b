/// The style sheet of locaudit's HTML pages (the audit report and the fleet summary): one
/// look, inlined in each page (no network). Every lane state of the timelines is one class here.
enum HTMLStyle {
    static let css = """

        :root { --ink: #1d2433; --muted: #5b6478; --line: #e3e7ee; --bg: #f6f7fb; --card: #fff;
          --critical: #b3261e; --high: #e8590c; --medium: #d9a400; --low: #1c7ed6; --info: #6c757d; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--ink);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif; }
        main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
        h1 { font-size: 28px; margin: 0 0 4px; }
        h2 { font-size: 20px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 16px; margin: 0 0 6px; }
        code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
        a { color: #1864ab; }
        .kicker { text-transform: uppercase; letter-spacing: .08em; color: var(--muted); font-size: 12px; margin: 0; }
        .meta { color: var(--muted); margin: 0; overflow-wrap: anywhere; }
        .verdict { margin-top: 20px; padding: 16px 20px; border-radius: 10px; border-left: 8px solid; background: var(--card);
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
        .verdict h2 { border: 0; margin: 0; padding: 0; font-size: 13px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); }
        .verdict-line { font-size: 26px; font-weight: 700; margin: 2px 0 6px; }
        .verdict.fail { border-color: var(--critical); } .verdict.fail .verdict-line { color: var(--critical); }
        .verdict.pass { border-color: #2b8a3e; } .verdict.pass .verdict-line { color: #2b8a3e; }
        .verdict.insufficient { border-color: #868e96; background: #fff8e1; } .verdict.insufficient .verdict-line { color: #7a5a00; }
        .verdict p { margin: 4px 0; }
        .contents { list-style: none; padding: 0; margin: 14px 0 0; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 14px; }
        .chips, .legend, .figures { list-style: none; padding: 0; margin: 10px 0 0; display: flex; flex-wrap: wrap; gap: 8px 16px; }
        .chip { padding: 2px 10px; border-radius: 999px; color: #fff; font-weight: 600; font-size: 13px; }
        .badge { display: inline-block; white-space: nowrap; padding: 0 8px; border-radius: 4px; color: #fff; font-size: 12px; font-weight: 600;
          text-transform: uppercase; letter-spacing: .03em; vertical-align: 1px; }
        .chip.sev-critical, .badge.sev-critical { background: var(--critical); }
        .chip.sev-high, .badge.sev-high { background: var(--high); }
        .chip.sev-medium, .badge.sev-medium { background: var(--medium); color: #1d2433; }
        .chip.sev-low, .badge.sev-low { background: var(--low); }
        .chip.sev-info, .badge.sev-info { background: var(--info); }
        .summary { display: grid; grid-template-columns: repeat(2, 1fr); gap: 18px; align-items: start; }
        .summary table.wide { grid-column: 1 / -1; }
        table { border-collapse: collapse; width: 100%; background: var(--card); border-radius: 8px; overflow: hidden;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        caption { text-align: left; font-weight: 600; padding: 0 0 6px; }
        th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
        td code { overflow-wrap: anywhere; }
        .device[title] { text-decoration: underline dotted var(--muted); text-underline-offset: 3px; cursor: help; }
        th { background: #eef1f6; font-size: 13px; color: var(--muted); white-space: nowrap; }
        td.count { text-align: right; width: 1%; white-space: nowrap; } th.count { text-align: right; }
        td small { color: var(--muted); }
        .figures { margin-bottom: 16px; }
        .figures li { background: var(--card); padding: 8px 14px; border-radius: 8px; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .figures li.warn { background: #fff4e6; }
        .figures strong { font-size: 20px; margin-right: 4px; }
        .note { color: #7a5a00; background: #fff8e1; padding: 8px 12px; border-radius: 6px; }
        .insufficient li { color: #7a5a00; }
        .finding { background: var(--card); border-radius: 8px; padding: 12px 16px; margin: 0 0 12px; border-left: 5px solid;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .finding:target, .evidence li:target { outline: 3px solid #ffd43b; }
        .finding.sev-critical { border-color: var(--critical); } .finding.sev-high { border-color: var(--high); }
        .finding.sev-medium { border-color: var(--medium); } .finding.sev-low { border-color: var(--low); }
        .finding.sev-info { border-color: var(--info); }
        .finding p { margin: 4px 0; }
        .number { color: var(--muted); font-weight: 400; }
        .tag { font-size: 12px; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 6px; font-weight: 400; }
        .where, .when { color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }
        .message { font-size: 15px; white-space: pre-wrap; overflow-wrap: anywhere; }
        .guidance { font-size: 14px; overflow-wrap: anywhere; }
        .suppressed { font-size: 14px; color: var(--muted); font-style: italic; overflow-wrap: anywhere; }
        .more { font-size: 13px; color: var(--muted); }
        .evidence-title { font-size: 13px; color: var(--muted); margin-bottom: 0; }
        .evidence-links { margin: 2px 0 0; padding: 0; list-style: none; font-size: 13px; overflow-wrap: anywhere;
          display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); column-gap: 24px; }
        .evidence-links .time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: 4px; }
        @media (max-width: 820px) { .evidence-links { grid-template-columns: minmax(0, 1fr); } }
        /* The findings' filters: radio buttons drawn as choices; the page's own rules hide what does not match. */
        .filters { display: flex; flex-direction: column; gap: 6px; margin: 0 0 14px; }
        .filter { border: 0; margin: 0; padding: 0; min-width: 0; }
        .filter legend { float: left; width: 5.5em; font-size: 13px; color: var(--muted); padding: 2px 0 0; }
        .filter .choices { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 6px; overflow: hidden; padding: 1px 4px 1px 1px; }
        .filter input { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
        .filter label { font-size: 13px; padding: 1px 10px; border: 1px solid var(--line); border-radius: 999px; background: var(--card);
          cursor: pointer; overflow-wrap: anywhere; }
        .filter label code { font-size: 12px; }
        .filter input:checked + label { background: var(--ink); border-color: var(--ink); color: #fff; }
        .filter input:focus-visible + label { outline: 3px solid #74c0fc; outline-offset: 1px; }
        .finding-list { display: flex; flex-direction: column; counter-reset: shown; }
        .finding-list .finding { counter-increment: shown; }
        .shown-count { order: -1; margin: 0 0 8px; font-size: 13px; color: var(--muted); }
        .shown-count::before { content: "Showing " counter(shown) " of " attr(data-total) " findings"; }
        .session { background: var(--card); border-radius: 8px; padding: 12px 16px; margin: 0 0 16px; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .session p { margin: 2px 0 8px; color: var(--muted); font-size: 14px; }
        .session ul { margin: 6px 0 0; padding-left: 18px; font-size: 14px; }
        svg.timeline { width: 100%; height: auto; display: block; font-family: inherit; }
        svg text { font-size: 11px; fill: var(--ink); }
        svg .axis text { fill: var(--muted); } svg .axis line { stroke: #d0d5dd; }
        svg .lane-name { fill: var(--muted); font-size: 12px; }
        svg .value { font-size: 10.5px; pointer-events: none; }
        svg .lane-bg { fill: #f1f3f7; }
        /* Lane states: one class per value (its fill, and the ink of its label), every lane's colours here. */
        svg .interval rect { fill: var(--fill, #ced4da); }
        svg .interval .value { fill: var(--ink, #1d2433); }
        svg .unknown { --fill: url(#unknown-hatch); } svg .unknown .value, svg .absent .value { fill: #868e96; font-style: italic; }
        svg .absent { --fill: #f1f3f7; }
        svg .hatch-ground { fill: #f8f9fa; } svg .hatch-line { stroke: #adb5bd; stroke-width: 2; }
        svg .app-foreground { --fill: #a5d8ff; } svg .app-background { --fill: #ffa94d; }
        svg .app-suspended { --fill: #ffe8cc; } svg .app-terminated { --fill: #adb5bd; }
        svg .use-in-use { --fill: #96f2d7; } svg .use-not-in-use { --fill: #ffc9c9; }
        svg .auth-not-determined { --fill: #dee2e6; } svg .auth-denied, svg .auth-restricted { --fill: #c92a2a; --ink: #fff; }
        svg .auth-when-in-use { --fill: #8ce99a; } svg .auth-allow-once { --fill: #d3f9d8; }
        svg .auth-provisional-always { --fill: #69db7c; } svg .auth-always { --fill: #2b8a3e; --ink: #fff; }
        svg .acc-full { --fill: #748ffc; --ink: #fff; } svg .acc-full-temporary { --fill: #bac8ff; } svg .acc-reduced { --fill: #e9ecef; }
        svg .bar-shown { --fill: #228be6; --ink: #fff; } svg .bar-hidden { --fill: #f1f3f7; }
        svg .arrow-arrow-on { --fill: #4c6ef5; --ink: #fff; } svg .arrow-arrow-off { --fill: #f1f3f7; }
        svg .svc-none { --fill: #f1f3f7; } svg .svc-on { --fill: #b197fc; }
        /* Said by a line: solid. Modelled by the replay: pale, with a dashed outline. */
        svg .interval.modelled rect { fill-opacity: .45; stroke: #495057; stroke-width: 1.5; stroke-dasharray: 5 3; }
        svg .interval.modelled .value { fill: #1d2433; font-style: italic; }
        svg .contradiction { fill: #c92a2a; stroke: #fff; stroke-width: 1; }
        .delivery { stroke: #fff; stroke-width: 1; }
        .delivery.fg { fill: #1971c2; } .delivery.bg { fill: #e8590c; } .delivery.private { fill: #fff; stroke: #495057; stroke-width: 1.5; }
        .delivery.cited { stroke: #c92a2a; stroke-width: 2.5; }
        svg .finding-line { stroke-width: 1.5; stroke-dasharray: 4 3; opacity: .8; }
        svg .finding-span { stroke-width: 3; opacity: .35; }
        svg .evidence-tick { stroke-width: 2; }
        svg .finding-label { font-size: 12px; font-weight: 600; }
        svg a:hover .finding-label { text-decoration: underline; }
        svg .sev-critical { fill: var(--critical); stroke: var(--critical); } svg .sev-high { fill: var(--high); stroke: var(--high); }
        svg .sev-medium { fill: var(--medium); stroke: var(--medium); } svg .sev-low { fill: var(--low); stroke: var(--low); }
        svg .sev-info { fill: var(--info); stroke: var(--info); }
        svg text.finding-label { stroke: #fff; stroke-width: 4px; stroke-linejoin: round; paint-order: stroke; }
        svg .prompt rect { fill: #fff3bf; stroke: #f08c00; stroke-width: 1; }
        svg .prompt .shown { fill: #f08c00; stroke: #fff; stroke-width: 1; }
        svg .answer { stroke: #fff; stroke-width: 1.5; } svg .answer.grant { fill: #2b8a3e; } svg .answer.deny { fill: #c92a2a; }
        svg .answer.unknown { fill: #868e96; }
        svg text.prompt-label { font-size: 12px; font-weight: 600; stroke: #fff; stroke-width: 4px; stroke-linejoin: round; paint-order: stroke; }
        svg a:hover .prompt-label { text-decoration: underline; }
        .session ul.prompts { list-style: none; padding-left: 0; color: var(--muted); }
        .legend li { font-size: 13px; color: var(--muted); display: flex; align-items: center; gap: 6px; }
        .evidence { padding-left: 0; list-style: none; }
        .evidence li { background: var(--card); border-radius: 6px; padding: 6px 12px; margin: 0 0 8px; box-shadow: 0 1px 2px rgba(0,0,0,.05); }
        .evidence .source { margin: 0; font-size: 13px; overflow-wrap: anywhere; }
        .evidence .time, .evidence .cites { color: var(--muted); margin-left: 8px; }
        .evidence pre { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; color: #343a40; }
        .resolved li { margin: 4px 0; }
        footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
        /* The fleet summary: matrices that scroll inside their box, headers held in view. */
        main.fleet { max-width: 1320px; }
        .matrix-scroll { max-height: min(70vh, 600px); overflow: auto; background: var(--card); border-radius: 8px;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); margin: 0 0 8px; }
        table.matrix { border-collapse: separate; border-spacing: 0; width: max-content; min-width: 100%; overflow: visible;
          border-radius: 0; box-shadow: none; }
        .matrix th, .matrix td { padding: 4px 8px; text-align: right; white-space: nowrap; }
        .matrix thead th { position: sticky; top: 0; z-index: 2; vertical-align: bottom; }
        .matrix tbody th, .matrix tfoot th { position: sticky; left: 0; z-index: 1; background: var(--card); text-align: left;
          font-weight: 400; color: var(--ink); font-size: 14px; max-width: 280px; overflow: hidden; text-overflow: ellipsis; }
        .matrix thead th.corner { left: 0; z-index: 3; text-align: left; }
        .matrix tfoot td, .matrix tfoot th { position: sticky; bottom: 0; background: #eef1f6; font-weight: 600; }
        .matrix tfoot th { z-index: 2; }
        .matrix td.total { font-weight: 600; }
        /* Column names wrap (at their hyphens) on a few lines: never rotated, never cut. */
        .matrix thead th:not(.corner) { white-space: normal; text-align: left; }
        .matrix thead th:not(.corner) span { display: block; min-width: 3.5em; max-width: 12em; overflow-wrap: anywhere; }
        /* A cell: coloured by its most severe finding, a link to its findings. */
        .matrix td.cell { padding: 0; }
        .matrix td.cell a { display: block; padding: 4px 8px; color: var(--ink); text-decoration: none; }
        .matrix td.cell a:hover, .matrix td.cell a:focus-visible { text-decoration: underline; outline: 2px solid var(--ink); outline-offset: -2px; }
        .cell.sev-critical, .swatch.sev-critical { background: #ffa8a8; box-shadow: inset 4px 0 var(--critical); }
        .cell.sev-high, .swatch.sev-high { background: #ffd8a8; box-shadow: inset 4px 0 var(--high); }
        .cell.sev-medium, .swatch.sev-medium { background: #fff3bf; box-shadow: inset 4px 0 var(--medium); }
        .cell.sev-low, .swatch.sev-low { background: #d0ebff; box-shadow: inset 4px 0 var(--low); }
        .cell.sev-info, .swatch.sev-info { background: #e9ecef; box-shadow: inset 4px 0 var(--info); }
        .swatch { display: inline-block; width: 18px; height: 12px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
        .cell-legend { margin: 0 0 10px; }
        .matrix.named td.cell { text-align: left; white-space: normal; min-width: 9em; }
        .matrix.named td.cell span { display: block; font-size: 12px; line-height: 1.35; }
        .matrix.named td.cell .app { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
          max-width: 16em; overflow-wrap: anywhere; }
        .matrix.named td.cell .more-apps, .matrix.named td.cell .n { color: var(--muted); }
        .note-plain { color: var(--muted); font-size: 14px; margin: 0 0 8px; }
        table.cell-findings { margin: 0 0 24px; }
        table.cell-findings tbody th { background: var(--card); color: var(--ink); font-size: 14px; font-weight: 400; white-space: normal;
          overflow-wrap: anywhere; }
        table.cell-findings tbody { border-top: 2px solid var(--line); }
        table.cell-findings tbody:target { outline: 3px solid #ffd43b; outline-offset: -3px; }
        table.cell-findings td code { overflow-wrap: anywhere; }
        .trend-row { display: flex; flex-wrap: wrap; gap: 18px 24px; align-items: flex-start; }
        .trend-row figure { margin: 0; flex: 1 1 480px; max-width: 720px; }
        .trend-row table { flex: 1 1 380px; width: auto; }
        svg.trend { width: 100%; height: auto; display: block; background: var(--card); border-radius: 8px;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        svg.trend .bar { fill: #4c6ef5; } svg.trend .night:last-of-type .bar { fill: #364fc7; }
        svg.trend .baseline { stroke: #adb5bd; }
        svg.trend text { font-size: 12px; fill: var(--muted); } svg.trend text.count { fill: var(--ink); font-weight: 600; }
        figcaption { color: var(--muted); font-size: 13px; margin: 6px 0 0; }
        /* A narrow window (a laptop's half screen, 760 px): one column, less padding. */
        @media (max-width: 820px) {
          main { padding: 16px 14px 40px; }
          .summary { grid-template-columns: minmax(0, 1fr); }
          .verdict { padding: 12px 14px; } .verdict-line { font-size: 22px; }
          /* The choices of a filter on one row that scrolls sideways. */
          .filter legend { width: 4.5em; }
          .filter .choices { flex-wrap: nowrap; overflow-x: auto; }
          .filter label { white-space: nowrap; }
          /* A timeline keeps a readable size and scrolls sideways in its box. */
          .timeline-box { overflow-x: auto; }
          .timeline-box svg.timeline { min-width: 860px; }
        }

        """
}
