"""The report's stylesheet: embedded in the page (no external URL), readable on paper.

Verdicts are told by words as well as colour (a printed report may be black and white); the print
rules keep a case and a table row on one page and drop the screen-only background tints.
"""

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1b1f23;
 margin:0 auto;max-width:1180px;padding:24px 32px}
h1{font-size:26px;margin:0}
h2{font-size:20px;border-bottom:2px solid #24292e;padding-bottom:4px;margin-top:32px}
h3{font-size:16px;margin:18px 0 6px}h4{font-size:14px;margin:14px 0 4px}
header .sub{font-size:16px;color:#444;margin:4px 0 12px}
code,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;
 border:1px solid #d0d7de;padding:6px;margin:4px 0}
table{border-collapse:collapse;width:100%;margin:6px 0 10px}
th,td{border:1px solid #d0d7de;padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
thead th{background:#eef1f4}
table.info th{width:210px;background:#f6f8fa}
td code{word-break:break-all}
.muted{color:#57606a}
ul.plain{list-style:none;padding-left:0;margin:0}
.badge{display:inline-block;min-width:54px;text-align:center;font-weight:700;font-size:12px;border-radius:3px;
 padding:1px 6px;border:1px solid #888}
.v-pass{background:#dafbe1;color:#116329;border-color:#1a7f37}
.v-fail{background:#ffebe9;color:#a40e26;border-color:#cf222e}
.v-error,.v-timeout,.v-incomplete{background:#fff8c5;color:#7d4e00;border-color:#bf8700}
.v-skip{background:#eaeef2;color:#424a53}
.v-notvalid{background:#a40e26;color:#fff;border-color:#a40e26}
.verdict{font-size:28px;padding:14px 20px;margin:10px 0 18px;border:3px solid;border-radius:6px}
.verdict .reasons{font-size:14px;margin-top:4px}
.banner{background:#a40e26;color:#fff;font-size:24px;font-weight:800;padding:14px 20px;margin:10px 0;
 border-radius:6px;letter-spacing:1px}
.banner ul{font-size:14px;font-weight:400;letter-spacing:0}
section.case{border:1px solid #d0d7de;border-radius:6px;padding:4px 14px 10px;margin:12px 0}
section.case.failing{border-left:6px solid #cf222e}
.changed{background:#fff8c5;font-weight:700}
.changed-mark{color:#a40e26}
svg.chart{max-width:100%;height:auto;margin:4px 12px 4px 0;background:#fff}
svg .plot{fill:#fbfcfd;stroke:#d0d7de}
svg .line{fill:none;stroke:#0969da;stroke-width:2}
svg .pt{fill:#0969da}
svg text{font-size:11px;fill:#424a53}
svg .ctitle{font-size:13px;font-weight:700}
svg .ylab{text-anchor:end}svg .xlab1{text-anchor:end}
pre.message{border-color:#cf222e}
footer{margin-top:32px;color:#57606a;font-size:12px}
@media print{
 body{max-width:none;padding:0;font-size:11px}
 @page{margin:14mm}
 section.case,tr,svg{break-inside:avoid;page-break-inside:avoid}
 h2,h3{break-after:avoid;page-break-after:avoid}
 a{color:inherit;text-decoration:none}
 .verdict,.banner,.badge{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
"""
