#!/bin/sh
# The web row of the cross-platform matrix (scripts/cross.sh web): the page
# examples/web/ (index.html, umap_web.c) built with Emscripten into one
# umap_web.js with the wasm inside, opened from file:// in headless Chromium,
# which fits the demo's 3,000 digits in a Web Worker and draws them on a
# canvas. The page's #result says what the canvas holds; this checks it:
# every point drawn, pixels inked in all ten digits' colours, the map's
# trustworthiness 0.98, and prints the fit's time in the browser.
#
#   scripts/cross_web.sh       (from the repository root; writes build/cross/web/:
#                               index.html to open by hand, page.png as drawn here)
#
# Chromium is driven over --remote-debugging-pipe by a few lines of node
# (below): --dump-dom with --virtual-time-budget does not wait for a worker,
# and virtual time stops the page's clock, so the fit would read 0 ms.
# CHROMIUM names the browser (default: chromium, else chromium-browser);
# WEB_TIMEOUT_S bounds the page's run (default 180, for a loaded machine).
# Exit status 77 with a "skipped: " line when emcc, node or Chromium is
# missing (Debian: emscripten nodejs node-acorn chromium), 1 when a step fails.
# shellcheck disable=SC2086 # $EMFLAGS splits into its flags on purpose
set -eu
BUILD=${BUILD:-build}
out=$BUILD/cross/web
# shellcheck source=scripts/emcc_env.sh
. scripts/emcc_env.sh
if [ -z "${CHROMIUM:-}" ]; then
    for c in chromium chromium-browser; do
        if command -v $c > /dev/null 2>&1; then CHROMIUM=$c; break; fi
    done
fi
[ -n "${CHROMIUM:-}" ] || { echo "skipped: chromium not installed (Debian: chromium)"; exit 77; }
browser=$(command -v "$CHROMIUM") || { echo "skipped: $CHROMIUM not installed (Debian: chromium)"; exit 77; }
CHROMIUM=$browser
fail() { echo "cross_web: FAILED: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cp examples/web/index.html "$out/"

t0=$(now)
emcc $EMFLAGS examples/web/umap_web.c -sENVIRONMENT=web,worker -sEXPORTED_RUNTIME_METHODS=UTF8ToString \
    --extern-pre-js examples/web/umap_web_pre.js --extern-post-js examples/web/umap_web_post.js \
    -o "$out/umap_web.js" || fail "emcc examples/web/umap_web.c"
t1=$(now)
echo "cross_web: built $out/umap_web.js in $((t1 - t0)) s"

# Opens the page in a fresh profile, polls its title until it says drawn
# or failed, prints "title: ...", "result: ..." and the page's console, and
# keeps a screenshot in page.png.
abs_out=$(cd "$out" && pwd)
PAGE_URL="file://$abs_out/index.html" PROFILE="$abs_out/profile" CHROMIUM="$CHROMIUM" \
    WEB_TIMEOUT_S="${WEB_TIMEOUT_S:-180}" CHROMIUM_LOG="$abs_out/chromium.log" PNG="$abs_out/page.png" \
    node - > "$out/page.log" 2>&1 << 'EOF' || true
const { spawn } = require("child_process");
const fs = require("fs");
const log = fs.openSync(process.env.CHROMIUM_LOG, "w");
const chrome = spawn(process.env.CHROMIUM, ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--window-size=800,1000", "--remote-debugging-pipe", "--user-data-dir=" + process.env.PROFILE, "about:blank"],
    { stdio: ["ignore", log, log, "pipe", "pipe"] });
let next = 0, buf = "", last = null, finishing = false;
const waiting = new Map();
function send(method, params, sessionId) {
    const id = ++next;
    chrome.stdio[3].write(JSON.stringify({ id, method, params: params || {}, sessionId }) + "\0");
    return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
chrome.stdio[4].on("data", (chunk) => {
    buf += chunk.toString("utf8");
    let end;
    while ((end = buf.indexOf("\0")) >= 0) {
        const m = JSON.parse(buf.slice(0, end));
        buf = buf.slice(end + 1);
        if (m.id && waiting.has(m.id)) {
            const w = waiting.get(m.id);
            waiting.delete(m.id);
            if (m.error) w.reject(new Error(JSON.stringify(m.error))); else w.resolve(m.result);
        } else if (m.method === "Runtime.consoleAPICalled") {
            console.log("console: " + m.params.args.map((a) => a.value).join(" "));
        } else if (m.method === "Runtime.exceptionThrown") {
            console.log("exception: " + JSON.stringify(m.params.exceptionDetails).slice(0, 500));
        }
    }
});
function finish(code, why) {
    if (finishing) return;
    finishing = true;
    if (why) console.log(why);
    if (last) console.log("title: " + last[0] + "\nstatus: " + last[2] + "\nresult: " + last[1]);
    send("Browser.close").catch(() => {});
    setTimeout(() => { chrome.kill("SIGKILL"); process.exit(code); }, 2000).unref();
    chrome.on("exit", () => process.exit(code));
}
setTimeout(() => finish(1, "timed out after " + process.env.WEB_TIMEOUT_S + " s"), 1000 * process.env.WEB_TIMEOUT_S);
chrome.on("exit", (c, s) => {
    if (finishing) return;
    console.log("chromium exited: " + (c === null ? s : c)); process.exit(1); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
    const { targetId } = await send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
    await send("Runtime.enable", {}, sessionId);
    await send("Page.navigate", { url: process.env.PAGE_URL }, sessionId);
    const probe = 'JSON.stringify([document.title, (document.getElementById("result") || {}).textContent || "",' +
        ' (document.getElementById("status") || {}).textContent || ""])';
    for (;;) {
        const r = await send("Runtime.evaluate", { expression: probe, returnByValue: true }, sessionId);
        if (r.result && typeof r.result.value === "string") last = JSON.parse(r.result.value);
        if (last && /^umap-web: (drawn|FAILED)/.test(last[0])) {
            const shot = await send("Page.captureScreenshot", { format: "png" }, sessionId);
            fs.writeFileSync(process.env.PNG, Buffer.from(shot.data, "base64"));
            return finish(0);
        }
        await sleep(250);
    }
})().catch((e) => finish(1, "driver: " + e.message));
EOF
t2=$(now)
if ! grep -q "^title: umap-web: drawn" "$out/page.log"; then
    why=$(grep -E '^(title|status|timed|driver|chromium|exception)' "$out/page.log" | head -5)
    fail "the page did not draw (see $out/page.log and $out/chromium.log): $why"
fi
result=$(grep "^result: " "$out/page.log")
for want in "points=3000 " "colours=10 " "trustworthiness=0.98" "where=worker"; do
    case $result in *"$want"*) ;; *) fail "the page's result lacks '$want': $result" ;; esac
done
ink=$(echo "$result" | sed -n 's/.* ink=\([0-9]*\).*/\1/p')
[ "${ink:-0}" -gt 0 ] || fail "no pixel inked on the canvas: $result"
echo "cross_web: headless $("$CHROMIUM" --version 2> /dev/null | head -1) drew the page in $((t2 - t1)) s:"
grep "^title: " "$out/page.log"
echo "$result"
