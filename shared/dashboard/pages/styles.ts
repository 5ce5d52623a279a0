// The dashboard's stylesheet, served as /assets/dashboard.css. State colours carry the
// meaning: green awake, amber waking, orange restarting, red unhealthy, grey asleep; a page
// that has lost contact with the fleet loses its colours until a refresh works again.
const widths = Array.from({ length: 20 }, (_, i) => `.tbar .w${i + 1}{flex-grow:${i + 1}}`).join('');

export const DASHBOARD_CSS = `
:root{--awake:#1f9d55;--waking:#d69e00;--restarting:#e06c00;--unhealthy:#d0342c;--asleep:#8a94a6;--ink:#1b2230;--muted:#667085;--line:#e3e7ee;--bg:#f6f7f9;--card:#fff;--accent:#2f5bd3}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:6px 16px;padding:10px 20px;background:#111827;color:#fff}
header.top h1{font-size:16px;margin:0;font-weight:600}header.top a{color:#fff}
header.top .where{font-size:12px;padding:2px 8px;border-radius:10px;background:#374151}
header.top .end{margin-left:auto;display:flex;align-items:center;gap:16px}header.top .fresh{font-size:12px;color:#cbd5e1}
header.top form{margin:0}header.top button{background:none;border:1px solid #4b5563;color:#e5e7eb;border-radius:6px;padding:3px 10px;cursor:pointer}
main{padding:16px 20px;max-width:1500px}
.stale-banner{position:sticky;top:0;z-index:5;padding:10px 20px;background:#fff4e5;border-bottom:2px solid var(--restarting);color:#7a3300;font-weight:600}
.stale-banner small{font-weight:400;color:#8a5a2b}.stale-banner a{text-decoration:underline}
.stale-banner.signed-out{background:#fdecec;border-color:var(--unhealthy);color:#8a1c16}
body.stale main{filter:grayscale(1);opacity:.5;transition:opacity .3s}body.stale header.top .fresh{color:#fbbf24}
.summary{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 14px}
.summary .total{font-size:16px;margin-right:6px}
.chip{display:inline-flex;align-items:center;gap:5px;padding:4px 10px;border-radius:14px;background:var(--card);border:1px solid var(--line)}
.chip.quiet{color:var(--muted)}.chip.busy{border-color:var(--waking)}.chip.bad{border-color:var(--unhealthy);color:var(--unhealthy)}.chip.warn{border-color:var(--waking);background:#fff8e1}
b.bad,.bad{color:var(--unhealthy)}.good{color:var(--awake)}.warn{color:#a86400}.muted{color:var(--muted)}.small{font-size:12px}
.state{display:inline-flex;align-items:center;gap:6px;font-weight:600;text-transform:uppercase;font-size:12px;letter-spacing:.03em}
.state i,.chip i{display:inline-block;width:10px;height:10px;border-radius:50%;background:var(--asleep)}
.s-awake i{background:var(--awake)}.s-waking i{background:var(--waking);animation:pulse 1s infinite}.s-restarting i{background:var(--restarting);animation:pulse 1s infinite}.s-unhealthy i{background:var(--unhealthy)}
.state.s-awake{color:var(--awake)}.state.s-waking{color:#a86400}.state.s-restarting{color:var(--restarting)}.state.s-unhealthy{color:var(--unhealthy)}.state.s-asleep{color:var(--asleep)}.state.s-held{color:var(--asleep)}
.since{display:block;color:var(--muted);font-size:11px}
@keyframes pulse{50%{opacity:.35}}
table.fleet{width:100%;border-collapse:separate;border-spacing:0;background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden}
table.fleet th{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);text-align:left;padding:8px 10px;border-bottom:1px solid var(--line);font-weight:600;white-space:nowrap}
table.fleet th.num,table.list th.num{text-align:right}
table.fleet td{padding:9px 10px;border-bottom:1px solid var(--line);vertical-align:middle}
table.fleet tr:last-child td{border-bottom:0}
.r-awake{--c:var(--awake)}.r-waking{--c:var(--waking)}.r-restarting{--c:var(--restarting)}.r-unhealthy{--c:var(--unhealthy)}
tr.agent-row td.st{border-left:4px solid var(--c,var(--asleep));width:110px}
tr.r-unhealthy{background:#fff5f5}
td.who small,td.model small{display:block;color:var(--muted);font-size:12px}td.model small.warn{color:#a86400}
td.who a.chat-link{font-size:12px}
td.who a.warn-mark{font-size:12px;text-decoration:none;white-space:nowrap}ul.warnings{margin:0;padding-left:0;list-style:none}
i.mark-warn{display:inline-block;width:1.3em;height:1.3em;border-radius:50%;background:var(--waking);color:#fff;font:700 11px/1.3em sans-serif;text-align:center;vertical-align:1px}
td.model span{font-family:ui-monospace,monospace;font-size:12px}
.num{text-align:right;font-variant-numeric:tabular-nums}td.num{font-size:15px;font-weight:600}td.num.quiet{color:#b0b8c6;font-weight:400}td.num.busy{color:#a86400}td.num.bad{color:var(--unhealthy)}
td.err-cell{color:var(--unhealthy);font-size:12px}td.err-cell div{max-width:260px;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;overflow:hidden;overflow-wrap:anywhere}
td.chart{width:150px}
svg.spark{display:block;height:28px;width:144px;background:#fafbfc;border-radius:3px}
svg.spark.lg{height:90px;width:100%}
svg.spark .base{stroke:#d5dae3;stroke-width:.5;vector-effect:non-scaling-stroke}
svg.activity .ok{fill:#5b8def}svg.activity .err{fill:var(--unhealthy)}
svg.queue path{fill:#f3c969;stroke:#d69e00;stroke-width:1;vector-effect:non-scaling-stroke}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:11px;margin:2px 0 10px}
.actions{display:inline-flex;flex-wrap:wrap;gap:6px}
button.act{font:inherit;font-size:12px;padding:3px 10px;border-radius:6px;border:1px solid var(--line);background:#fff;cursor:pointer}
button.act:hover{border-color:var(--accent)}button.act-wake{border-color:var(--awake);color:var(--awake)}button.act-restart{color:var(--restarting)}button.act-approve{border-color:var(--accent);color:var(--accent)}
button.act[disabled]{opacity:.5;cursor:progress}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:0 0 14px}
.card h2,.card h3{margin:0 0 8px;font-size:14px}
.pairings ul{margin:0;padding-left:18px}.pairings li{margin:4px 0}.count{background:var(--waking);color:#fff;border-radius:10px;padding:0 7px;font-size:12px}
.grid{display:grid;grid-template-columns:minmax(320px,1fr) 2fr;gap:14px}
.agent-head{display:flex;flex-wrap:wrap;align-items:center;gap:6px 14px;margin:0 0 12px;padding-left:10px;border-left:5px solid var(--c,var(--asleep))}
.agent-head h2{margin:0;font-size:20px}.agent-head small{color:var(--muted);font-weight:400}
dl.facts{display:grid;grid-template-columns:110px 1fr;gap:6px 10px;margin:0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
table.list{width:100%;border-collapse:collapse}table.list th{text-align:left;font-size:11px;color:var(--muted);text-transform:uppercase;padding:4px 6px;border-bottom:1px solid var(--line)}
table.list td{padding:5px 6px;border-bottom:1px solid #f0f2f5;font-size:13px}td.clip{max-width:360px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
code{font-family:ui-monospace,monospace;font-size:12px}
.tbar{display:inline-flex;width:120px;height:10px;border-radius:3px;overflow:hidden;background:#eef0f4}
.seg{display:inline-block;height:10px;min-width:2px}.legend .seg{width:10px;margin:0 4px 0 10px;vertical-align:middle}
.seg-wait{background:#c0c7d4}.seg-model{background:#5b8def}.seg-tools{background:#f0a23b}
${widths}
.chat .file img{max-width:240px;max-height:240px;display:block;border-radius:6px;margin:2px 0}.chat .file a{text-decoration:none}
.chat .chat-log{position:relative;height:clamp(260px,45vh,440px);overflow:auto;border:1px solid var(--line);border-radius:8px;padding:8px;background:#fbfcfd}
.msg{max-width:75%;margin:5px 0;padding:7px 11px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}.mark svg{width:1.15em;height:1.15em;vertical-align:-.2em}.msg.user{margin-left:auto;background:#dbe7ff}.msg.agent{background:#eef0f3}
.msg.draft{opacity:.75;border:1px dashed #c5cad3}
.msg .buttons{margin-top:6px;white-space:normal}.msg .buttons div{display:flex;gap:4px;margin-top:4px}.msg .buttons button{flex:1;padding:4px 8px;border:1px solid #c5cad3;border-radius:6px;background:#fff;cursor:pointer}.msg .buttons button:disabled{opacity:.5;cursor:default}
.typing{color:var(--muted);min-height:1.4em;font-size:12px}
.chat-form{display:flex;gap:8px}.chat-form input{flex:1;min-width:0;padding:7px;font:inherit;border:1px solid var(--line);border-radius:6px}.chat-form button{padding:7px 16px;font:inherit}
.attach{position:relative;display:flex;align-items:center;padding:0 9px;border:1px solid var(--line);border-radius:6px;background:#fff;cursor:pointer;color:var(--muted)}.attach:focus-within{outline:2px solid var(--accent)}.attach svg{width:18px;height:18px}
.attach input{position:absolute;inset:0;opacity:0;cursor:pointer;width:100%}
#events{position:fixed;right:16px;bottom:16px;display:flex;flex-direction:column;gap:6px;max-width:380px;margin:0;padding:0;list-style:none}
#events li{background:#111827;color:#fff;padding:8px 12px;border-radius:8px;font-size:13px;box-shadow:0 2px 8px #0003}#events li.failed{background:var(--unhealthy)}#events li.done{background:#14532d}
dialog{border:1px solid var(--line);border-radius:10px;padding:18px 20px;max-width:420px}dialog::backdrop{background:#0005}
dialog menu{display:flex;gap:8px;justify-content:flex-end;padding:0;margin:14px 0 0}dialog button{font:inherit;padding:5px 14px;border-radius:6px;border:1px solid var(--line);background:#fff;cursor:pointer}dialog button.primary{background:var(--accent);color:#fff;border-color:var(--accent)}
.login{max-width:380px;margin:12vh auto;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:24px}
.login h1{font-size:18px;margin:0 0 12px}.login input{width:100%;padding:8px;font:inherit;margin:6px 0 12px;border:1px solid var(--line);border-radius:6px}.login button{padding:8px 18px;font:inherit;background:var(--accent);color:#fff;border:0;border-radius:6px;cursor:pointer}
.login .error{color:var(--unhealthy);margin:0 0 10px}.login .hint{color:var(--muted);font-size:12px;margin-top:14px}
.grid>*{min-width:0}dd{overflow-wrap:anywhere}
@media (max-width:1100px){.grid{grid-template-columns:1fr}}
@media (max-width:1200px){table.fleet .chart{display:none}}
@media (max-width:760px){
main,header.top{padding:12px}
table.fleet,table.fleet tbody{display:block}table.fleet thead{display:none}
tr.agent-row{display:grid;grid-template-columns:repeat(6,1fr);grid-template-areas:"who who who who st st" "model model model model model model" "hb hb q q dlq dlq" "ct ct ct cq cq cq" "err err err err err err" "acts acts acts acts acts acts";border-left:4px solid var(--c,var(--asleep));border-bottom:1px solid var(--line);padding:4px 0}
tr.agent-row td{border:0;padding:4px 12px}tr.agent-row td.st{border:0;width:auto;text-align:right;grid-area:st}
td.who{grid-area:who}td.model{grid-area:model}td.hb{grid-area:hb}td.q{grid-area:q}td.dlq{grid-area:dlq}td.ct{grid-area:ct}td.cq{grid-area:cq}td.err-cell{grid-area:err}td.err-cell div{max-width:none;-webkit-line-clamp:4}td.err-cell:empty{display:none}td.acts{grid-area:acts}
table.fleet .chart{display:block;width:auto}td.chart svg.spark{width:100%}td.num{text-align:left}
td[data-label]::before{content:attr(data-label);display:block;font:600 11px/1.6 system-ui,sans-serif;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}
table.list{display:block;overflow-x:auto;white-space:nowrap}dl.facts{grid-template-columns:90px 1fr}.msg{max-width:88%}
}
`;
