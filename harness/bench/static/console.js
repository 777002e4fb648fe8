// tablecert bench console: polls the run's state on 127.0.0.1 and answers prompts.
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
let lastEvent = 0;
let prompt = null;
let deadline = 0;
let lastShown = "";
let audio = null;
const TITLE = document.title;

// An alert when a new instruction arrives: a tone (WebAudio; a browser plays it only once the page
// has been clicked, hence the "sound on" button), the title changes and the prompt flashes.
function beep() {
  if (!audio) return;
  if (audio.state === "suspended") audio.resume();
  [0, 0.25].forEach((at) => {
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.25, audio.currentTime + at);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + at + 0.2);
    osc.connect(gain).connect(audio.destination);
    osc.start(audio.currentTime + at);
    osc.stop(audio.currentTime + at + 0.2);
  });
}

function alertNew(p) {
  document.title = "\u25b6 ACTION NEEDED: " + p.message;
  document.body.classList.remove("alert");
  void document.body.offsetWidth;
  document.body.classList.add("alert");
  document.body.dataset.alerts = String(Number(document.body.dataset.alerts || 0) + 1);
  beep();
}

$("sound").addEventListener("click", () => {
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) audio = new Ctx();
  }
  $("sound").classList.add("on");
  $("sound").textContent = "sound is on";
  beep();
});

$("operator").value = localStorage.getItem("tablecert-operator") || "";
$("operator").addEventListener("change", () => localStorage.setItem("tablecert-operator", $("operator").value));

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawSheet(sheet) {
  const box = $("sheet");
  box.replaceChildren();
  if (!sheet) return;
  box.appendChild(el("h3", "", sheet.title + (sheet.kind === "stack" ? " (top card first)" : "")));
  if (sheet.kind === "stack") {
    const cards = el("div", "cards");
    sheet.cards.forEach((c, i) => {
      const card = el("div", "card " + c.colour);
      card.title = c.code;
      card.dataset.code = c.code;
      card.appendChild(el("span", "pos", String(i + 1)));
      card.appendChild(el("span", "rank", c.rank));
      card.appendChild(el("span", "suit", c.suit));
      cards.appendChild(card);
    });
    box.appendChild(cards);
  } else if (sheet.kind === "wagers") {
    const table = el("table", "wagers");
    const head = el("tr");
    ["seat", "area", "amount"].forEach((h) => head.appendChild(el("th", "", h)));
    table.appendChild(head);
    sheet.rows.forEach((r) => {
      const tr = el("tr");
      [String(r.seat), r.area, r.amount].forEach((v) => tr.appendChild(el("td", "", v)));
      table.appendChild(tr);
    });
    box.appendChild(table);
  }
}

function showLast(last) {
  if (!last || last.id === lastShown) return;
  lastShown = last.id;
  $("last").textContent = "previous prompt " + last.id + " (" + last.message + "): " + last.outcome;
  $("last").className = last.answer;
  $("last").dataset.id = last.id;
  $("last").hidden = false;
}

function showPrompt(p) {
  if (!p) {
    prompt = null;
    $("prompt").hidden = true;
    $("idle").hidden = false;
    document.title = TITLE;
    return;
  }
  if (!prompt || prompt.id !== p.id) {
    prompt = p;
    $("prompt-case").textContent = "case " + p.case;
    $("prompt-step").textContent = p.step;
    $("instruction").textContent = p.message;
    $("next").textContent = p.next ? "Next: " + p.next : "";
    alertNew(p);
    drawSheet(p.question === "act" ? p.sheet : null);
    $("note").value = "";
    $("answer-error").textContent = "";
    $("abort-confirm").hidden = true;
    $("prompt").dataset.id = p.id;
    $("prompt").hidden = false;
    $("idle").hidden = true;
  }
  deadline = Date.now() + p.left_s * 1000;
}

function tick() {
  if (!prompt) return;
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  const m = Math.floor(left / 60), s = left % 60;
  $("countdown").textContent = "answer within " + m + ":" + String(s).padStart(2, "0");
  $("countdown").classList.toggle("late", left < 60);
}

function showProgress(run, pr) {
  $("profile").textContent = run.profile;
  $("run-id").textContent = run.run_id;
  if (!$("operator").value && run.operator) $("operator").value = run.operator;
  const pct = pr.total ? Math.round(100 * pr.done / pr.total) : 0;
  $("bar-done").style.width = pct + "%";
  $("progress-text").textContent = pr.total
    ? "case " + Math.min(pr.done + 1, pr.total) + " of " + pr.total + ": " + pr.case + (pr.title ? " \u2014 " + pr.title : "")
    : "waiting for the run";
  const v = $("verdicts");
  v.replaceChildren();
  Object.entries(pr.verdicts).forEach(([k, n]) => v.appendChild(el("span", "", k + " " + n)));
}

function addEvents(events) {
  const list = $("events");
  events.forEach((e) => {
    const li = el("li");
    li.appendChild(el("span", "role", e.role));
    const fields = Object.entries(e.payload).map(([k, v]) => k + " " + (v === null ? "-" : v)).join(", ");
    li.appendChild(el("span", "event", e.event));
    li.appendChild(document.createTextNode(" " + fields));
    li.title = e.at;
    list.insertBefore(li, list.firstChild);
    lastEvent = Math.max(lastEvent, e.n);
  });
  while (list.children.length > 200) list.removeChild(list.lastChild);
}

async function poll() {
  try {
    const r = await fetch("api/state?since=" + lastEvent, { headers: { "X-Tablecert-Token": token } });
    if (r.ok) {
      const st = await r.json();
      showProgress(st, st.progress);
      showPrompt(st.prompt);
      showLast(st.last);
      addEvents(st.events);
      document.body.dataset.connected = "yes";
    } else {
      document.body.dataset.connected = "refused";
    }
  } catch (err) {
    document.body.dataset.connected = "no";
  }
  setTimeout(poll, 250);
}

async function answer(kind) {
  if (!prompt) return;
  const body = { prompt: prompt.id, answer: kind, operator: $("operator").value, note: $("note").value };
  const r = await fetch("api/answer", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Tablecert-Token": token },
    body: JSON.stringify(body),
  });
  if (!r.ok) {
    const e = await r.json().catch(() => ({ error: r.statusText }));
    $("answer-error").textContent = e.error;
  }
}

$("done").addEventListener("click", () => answer("done"));
$("cannot").addEventListener("click", () => answer("cannot"));
$("abort").addEventListener("click", () => { $("abort-confirm").hidden = false; });
$("abort-confirm").addEventListener("click", () => answer("abort"));
setInterval(tick, 250);
poll();
