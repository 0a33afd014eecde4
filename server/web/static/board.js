// The board pane of /play: the game you are in, drawn from the GMCP view the server
// sends the terminal (the same data, no second source), and played by pointing. Every
// click sends the very command a player would type (window.esterport.command shows it in
// the scrollback too), so pointing teaches the typed commands. Keyboard: every target is a
// button (Tab, Enter, Space). The board in words is the game's own screen-reader lines;
// cards are named in words ("queen of hearts", "Red Princess") for a screen reader, as
// those lines name them. The pane's live region (#pane-says, never redrawn) says whose
// move it is as the pane shows it, and the questions the pane asks.
"use strict";
(function () {
  const pane = document.getElementById("pane");
  if (!pane || !window.esterport) return;
  const E = window.esterport;
  const SVGNS = "http://www.w3.org/2000/svg";

  let shown = null;       // the payload drawn: {game, seat, version, view, ...}
  let clockEnd = 0;       // when the game's clock runs out (this page's Date.now()), 0: none
  let pick = null;        // what the player has selected: {kind, value}
  let hint = null;        // Pyramid: the spots HINT named
  let wasMyMove = false;
  let lobbyNote = "";     // why the pane is back in the lobby (a table left), said there
  let lastTurn = "";      // the turn line the live region said last
  const says = document.getElementById("pane-says");
  function say(text) { if (says && says.textContent !== text) says.textContent = text; }

  // -- small helpers -----------------------------------------------------------------------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
    }
    return el;
  }
  function s(tag, attrs, ...kids) {
    const el = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.setAttribute("class", v);
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, String(v));
    }
    for (const kid of kids.flat(Infinity)) if (kid) el.appendChild(kid);
    return el;
  }
  // A click sends a command; a pointer's click gives the focus back to the command line
  // (a keyboard's stays in the pane, where it was).
  function act(line) {
    return (ev) => { ev.preventDefault(); E.command(line, ev); };
  }
  function button(label, line, attrs) {
    return h("button", Object.assign({ type: "button", class: "act", onclick: act(line),
                                        title: line }, attrs || {}), label);
  }
  function choose(kind, value) {
    return (ev) => {
      ev.preventDefault();
      pick = pick && pick.kind === kind && pick.value === value ? null : { kind, value };
      draw(ev.detail === 0 ? kind + ":" + value : null);
    };
  }
  function nameLink(name) {
    if (!name) return h("span", {}, "—");
    return h("a", { href: "/players/" + encodeURIComponent(name), target: "_blank" }, name);
  }
  function mine(p) { return p.seat !== null && p.seat !== undefined; }
  function myMove(p) {
    return mine(p) && !p.finished && (p.to_move || []).includes(p.seat);
  }

  // -- the pane ------------------------------------------------------------------------------
  function draw(focusKey) {
    const p = shown;
    const body = document.getElementById("pane-body");
    const had = body.contains(document.activeElement);
    const key = focusKey || (had ? document.activeElement.getAttribute("data-key") : null);
    body.textContent = "";
    body.appendChild(p ? game(p) : lobby());
    if (key || had) {
      // the focus stays in the pane: on the element it was on (by its key), or else on
      // the board's tab stop, or the pane itself; never dropped to the page
      const el = key ? body.querySelector('[data-key="' + key + '"]') : null;
      if (el) el.focus();
      if (!el || document.activeElement !== el) (body.querySelector('[role="grid"] [tabindex="0"]') || pane).focus();
    }
  }
  function game(p) {
    const box = document.createDocumentFragment();
    const v = p.view || {};
    const names = p.players || [];
    box.appendChild(h("div", { class: "pane-head" },
      h("h2", { id: "pane-title" }, "Game #" + p.game + ": " + (p.title || "")),
      h("p", { class: "players" }, names.map((n, i) => [i ? (names.length > 2 ? ", " : " vs ") : "", nameLink(n)]))));
    // the turn line (and the clock) stays in view while the board scrolls (style.css)
    box.appendChild(h("div", { class: "now" },
      h("p", { id: "turn", class: "turn" + (myMove(p) ? " mine" : "") }, turnText(p)),
      clockEnd ? h("p", { id: "clock", class: "clock", role: "timer" }, clockText(p)) : null));
    const drawer = { dice: dice, pyramid: pyramid, "pyramid-hidden": pyramidHidden,
                     triptycha: triptycha, triad: triad }[v.game];
    box.appendChild(drawer ? drawer(p, v, names) : h("div", { class: "board generic" }));
    if (p.finished) box.appendChild(afterwards(p));
    box.appendChild(words(p));
    return box;
  }

  // -- the clock -------------------------------------------------------------------------------
  function mmss(ms) {
    const t = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(t / 60) + ":" + String(t % 60).padStart(2, "0");
  }
  function clockText(p) {
    const c = p.clock, v = p.view || {}, left = mmss(clockEnd - Date.now());
    const name = (p.players || [])[c.seat] || "Seat " + (c.seat + 1);
    if (v.game === "triptycha" && v.phase === "trading") {
      return "Trading ends in " + left + (c.seat === p.seat ? " (then Done for you)." : " (then Done for " + name + ").");
    }
    if (v.game === "triad" && v.phase === "hand_over") return "The next hand is dealt in " + left + ".";
    return (c.seat === p.seat ? "You have " : name + " has ") + left + " to act.";
  }
  function tick() {
    const el = document.getElementById("clock");
    if (!el || !shown || !clockEnd) return;
    el.textContent = clockText(shown);
    el.classList.toggle("low", shown.clock.seat === shown.seat && clockEnd - Date.now() < 10000);
  }

  function turnText(p) {
    if (p.finished) return p.result || "The game is over.";
    const v = p.view || {};
    let extra = "";
    if (v.game === "dice") extra = "Turn " + (v.turns + 1) + ". ";
    const movers = (p.to_move || []).map((i) => (p.players || [])[i]).filter(Boolean);
    if (!mine(p)) return extra + (movers.length ? movers.join(", ") + " to move. " : "") + "You are watching.";
    if (myMove(p)) return extra + "Your move.";
    return extra + (movers.length ? movers.join(", ") + " to move." : "Waiting.");
  }

  function words(p) {
    const lines = p.spoken || [];
    const det = h("details", { class: "words", id: "words" },
      h("summary", {}, "The board in words"),
      h("ul", { id: "spoken" }, lines.map((l) => h("li", {}, l))));
    if (wordsOpen) det.open = true;
    det.addEventListener("toggle", () => { wordsOpen = det.open; });
    return det;
  }
  let wordsOpen = false;

  function afterwards(p) {
    const v = p.view || {};
    const prefix = { dice: "DICE", triptycha: "TT", pyramid: "PYR", triad: "TRIAD" }[v.game];
    const box = h("div", { class: "controls" });
    if (prefix && prefix !== "PYR" && prefix !== "TRIAD" && mine(p)) {
      box.appendChild(button("Rematch", prefix + " REMATCH"));
    }
    box.appendChild(h("a", { class: "act", href: "/games/" + p.game + "/replay", target: "_blank" },
                      "Replay game #" + p.game));
    box.appendChild(h("button", { type: "button", class: "act", onclick: (ev) => {
      ev.preventDefault(); toLobby(""); E.refocus(ev);
    } }, "Close the board"));
    return box;
  }

  // The lobby: before login, a login and a new account (the page answers the terminal's
  // prompts for you); after it, a game against the computer at the level chosen, a
  // challenge to someone online, the open seeks and the open tournaments. Each button
  // types its command, which shows in the scrollback.
  function lobby() {
    const note = lobbyNote ? h("p", { id: "lobby-note", class: "note" }, lobbyNote) : null;
    if (!me) return h("div", { class: "lobby" }, note, h("h2", { id: "pane-title" }, "Log in"), accountForms());
    const level = (cmd) => cmd + " " + computerLevel.toUpperCase();
    const vs = (label, cmd) => h("button", { type: "button", class: "act", title: level(cmd), "data-level": cmd,
      onclick: (ev) => { ev.preventDefault(); E.command(level(cmd), ev); } }, label);
    const levels = h("fieldset", { class: "levels" }, h("legend", {}, "The computer plays"),
      LEVELS.map((l) => h("label", {}, h("input", { type: "radio", name: "level", value: l, "data-key": "level:" + l,
        checked: l === computerLevel, onchange: (ev) => {
          computerLevel = ev.target.value;
          for (const b of pane.querySelectorAll("[data-level]")) b.title = level(b.getAttribute("data-level"));
        } }), " " + l[0].toUpperCase() + l.slice(1))));
    const challenged = h("input", { id: "challenge-name", list: "online", autocomplete: "off", autocapitalize: "off",
      spellcheck: "false", value: challengeName, oninput: (ev) => { challengeName = ev.target.value; } });
    const kinds = h("select", { id: "challenge-game", onchange: (ev) => { challengeGame = ev.target.value; } },
      CHALLENGES.map(([prefix, title]) => h("option", { value: prefix, selected: prefix === challengeGame }, title)));
    const challenge = h("form", { class: "challenge", onsubmit: (ev) => {
      ev.preventDefault();
      const name = challengeName.trim().split(/\s+/)[0];
      if (!name) { challenged.focus(); return; }
      E.command(challengeGame + " CHALLENGE " + name, ev);
    } },
      h("label", { for: "challenge-name" }, "Name"), challenged,
      h("label", { for: "challenge-game" }, "Game"), kinds,
      h("button", { type: "submit", class: "act" }, "Challenge"),
      h("datalist", { id: "online" }));
    const box = h("div", { class: "lobby" }, note,
      h("h2", { id: "pane-title" }, "Start a game"),
      h("p", {}, "Each button types its command for you, in the terminal."),
      levels,
      h("div", { class: "controls" },
        vs("Triad Dice vs computer", "DICE CHALLENGE COMPUTER"),
        vs("Triptycha vs computer", "TT CHALLENGE COMPUTER"),
        button("Pyramid (solitaire)", "PYR NEW"),
        button("Triad table + computer", "TRIAD OPEN")),
      h("h3", {}, "Challenge a player"),
      h("p", { id: "lobby-online" }),
      challenge,
      h("h3", {}, "Open seeks"),
      h("ul", { id: "lobby-seeks", class: "offers" }),
      h("h3", {}, "Open tournaments"),
      h("ul", { id: "lobby-tourneys", class: "offers" }),
      h("div", { class: "controls" }, button("Who is here", "WHO"), button("Help", "HELP")));
    lists(box);
    return box;
  }

  const LEVELS = ["easy", "normal", "hard"];   // the computer's levels every game has
  const CHALLENGES = [["DICE", "Triad Dice"], ["TT", "Triptycha"]];   // the games for two
  let computerLevel = "easy";
  let challengeName = "", challengeGame = "DICE";
  let me = null;          // the name logged in as (GMCP Char.Name), null before login
  let seeks = {};         // the open seeks by number (GMCP Seek.List, Seek.Add, Seek.Remove)
  let online = [];        // the names online (/api/who)
  let tourneys = [];      // the tournaments open to entries (/api/tournaments)
  let accountName = "";   // the name typed in the login forms, kept across a redraw

  // The lobby's lists, filled in (again) as they change, without redrawing the lobby: what
  // is typed in it stays, and a focused Take or Join stays focused while it is listed.
  function lists(root) {
    const at = root.querySelector.bind(root);
    const who = at("#lobby-online"), seekList = at("#lobby-seeks"), tourneyList = at("#lobby-tourneys");
    if (!who) return;
    const others = online.filter((n) => n !== me);
    refill(who, [others.length ? "Online now: " + others.join(", ") + "." : "Nobody else is online now."]);
    refill(at("#online"), others.map((n) => h("option", { value: n })));
    const open = Object.values(seeks).sort((a, b) => a.id - b.id);
    refill(seekList, open.length ? open.map((k) => h("li", {},
      h("span", {}, k.id + ". " + k.name + (k.rating ? " (" + Math.round(k.rating) + ")" : "") + ": " + (k.describe || k.kind) + "."),
      k.name === me ? h("span", { class: "tip" }, " (yours)") : button("Take", "PLAY " + k.id, { "data-key": "seek:" + k.id, "aria-label": "Take seek " + k.id + " (" + k.name + ")" })))
      : [h("li", {}, "No open seeks.")]);
    refill(tourneyList, tourneys.length ? tourneys.map((t) => h("li", {},
      h("a", { href: t.href, target: "_blank" }, t.title || "Tournament " + t.id),
      " " + (t.kind_title || "") + ", " + t.entrants + " entered. ",
      button("Join", "TOURNEY JOIN " + t.id, { "data-key": "tourney:" + t.id, "aria-label": "Join tournament " + t.id })))
      : [h("li", {}, "No tournament is open.")]);
  }
  function refill(el, kids) {
    const focused = el.contains(document.activeElement) ? document.activeElement.getAttribute("data-key") : null;
    el.textContent = "";
    for (const k of kids) el.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
    if (focused) (el.querySelector('[data-key="' + focused + '"]') || pane).focus();
  }
  // who is online and the open tournaments, read from the door's JSON while the lobby shows
  let reading = null;
  function readLists() {
    if (!me || shown || reading) return;
    reading = Promise.all(["/api/who", "/api/tournaments"].map((u) => fetch(u).then((r) => r.ok ? r.json() : null).catch(() => null)))
      .then(([who, ts]) => {
        if (who && who.players) online = who.players.map((x) => x.name);
        if (ts && ts.open) tourneys = ts.open;
        if (!shown) lists(pane);
      }).finally(() => { reading = null; });
  }
  setInterval(() => { if (!document.hidden) readLists(); }, 20000);

  // A login or a new account by the form: the page answers the terminal's prompts with
  // what is typed here (play.js, E.account); a refusal (a name taken, a wrong password)
  // comes back as the lobby's note.
  function accountForms() {
    const field = (id, label, attrs) => [h("label", { for: id }, label), h("input", Object.assign({ id: id }, attrs))];
    const named = (ev) => { accountName = ev.target.value; };
    const old = h("form", { class: "account", "aria-labelledby": "pane-title", onsubmit: (ev) => {
      ev.preventDefault();
      const f = ev.target;
      E.account(false, f.elements["login-name"].value.trim(), f.elements["login-password"].value);
      say("Logging in as " + f.elements["login-name"].value.trim() + "…");
    } },
      field("login-name", "Name", { name: "login-name", autocomplete: "username", required: true, value: accountName, oninput: named, autocapitalize: "off", spellcheck: "false" }),
      field("login-password", "Password", { name: "login-password", type: "password", autocomplete: "current-password", required: true }),
      h("button", { type: "submit", class: "act" }, "Log in"));
    const fresh = h("form", { class: "account", "aria-labelledby": "new-title", onsubmit: (ev) => {
      ev.preventDefault();
      const f = ev.target;
      E.account(true, f.elements["new-name"].value.trim(), f.elements["new-password"].value, f.elements["new-again"].value);
      say("Making the account " + f.elements["new-name"].value.trim() + "…");
    } },
      field("new-name", "Name", { name: "new-name", autocomplete: "username", required: true, value: accountName, oninput: named, autocapitalize: "off", spellcheck: "false" }),
      field("new-password", "Password", { name: "new-password", type: "password", autocomplete: "new-password", required: true, minlength: 4, "aria-describedby": "new-hint" }),
      field("new-again", "Again", { name: "new-again", type: "password", autocomplete: "new-password", required: true, minlength: 4, "aria-label": "The password again" }),
      h("p", { id: "new-hint", class: "tip" }, "A password has 4 characters or more; type it twice."),
      h("button", { type: "submit", class: "act" }, "Make the account"));
    return [old, h("h2", { id: "new-title" }, "New account"), fresh,
            h("p", { class: "tip" }, "Or type in the terminal: your name at Name:, or NEW for a new account.")];
  }

  // Back to the lobby: the board closed, or the game over for you without a finished board
  // to show (you left its table, or were stood up from it). ``note`` says why, in the
  // lobby and in the live region; a keyboard's focus goes to the pane, not to the page.
  function toLobby(note) {
    const focused = document.activeElement && pane.contains(document.activeElement);
    shown = null; pick = null; hint = null; clockEnd = 0; asking = null; lastTurn = ""; gridCell = null;
    lobbyNote = note;
    for (const k of ["game", "kind", "version", "finished"]) delete pane.dataset[k];
    draw();
    pane.scrollTop = 0;    // the note and the games, not the end of the board that was
    if (pane.getBoundingClientRect().top < 0) pane.scrollIntoView();   // (a phone's page)
    notice(null);
    say(note);
    readLists();
    if (focused) pane.focus();
  }

  // Resigning (and ending a Pyramid game) asks first: the first press turns the button
  // into its question for a few seconds, said in the live region too; a second press
  // sends the command; Escape, or waiting, carries on. The question outlasts a redraw
  // (an opponent's move), as it is kept by command line, not by button.
  const ASK_MS = 5000;
  let asking = null;      // {line, until}: the command a question waits to confirm
  let askTimer = null;
  function askFirst(label, question, line) {
    const armed = () => Boolean(asking && asking.line === line && Date.now() < asking.until);
    const el = h("button", { type: "button", class: "act quiet", title: line, "data-key": "ask:" + line });
    function show(on) {
      el.textContent = on ? question + " Press again" : label;
      el.classList.toggle("asking", on);
    }
    function settle(text) {
      asking = null;
      clearTimeout(askTimer);
      const b = pane.querySelector('[data-key="ask:' + line + '"]');
      if (b) { b.textContent = label; b.classList.remove("asking"); }
      say(text);
    }
    el.addEventListener("click", (ev) => {
      ev.preventDefault();
      if (armed()) { settle(""); E.command(line, ev); return; }
      asking = { line: line, until: Date.now() + ASK_MS };
      show(true);
      say(question + " Press the button again within " + ASK_MS / 1000 + " seconds to confirm; Escape carries on.");
      clearTimeout(askTimer);
      askTimer = setTimeout(() => settle(label + ": not confirmed, the game goes on."), ASK_MS);
    });
    el.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && armed()) { ev.preventDefault(); settle(label + ": cancelled, the game goes on."); }
    });
    show(armed());
    return el;
  }

  // -- Triad Dice ----------------------------------------------------------------------------
  const DIRS = { N: [0, 1], NE: [1, 1], E: [1, 0], SE: [1, -1], S: [0, -1], SW: [-1, -1], W: [-1, 0], NW: [-1, 1] };
  const COLS = "abcdef";
  function cellAt(cell, dir, n) {
    const c = COLS.indexOf(cell[0]) + DIRS[dir][0] * n, r = Number(cell[1]) + DIRS[dir][1] * n;
    return c >= 0 && c < 6 && r >= 1 && r <= 6 ? COLS[c] + r : null;
  }
  function dice(p, v, names) {
    const grid = {};
    for (const d of v.dice || []) grid[d.cell] = d;
    const legal = v.legal || [];
    const moves = {};      // from -> [{to, line}]
    const still = {};      // from -> [lines that move nowhere] (stalemate)
    const removals = {};   // cell -> line
    for (const line of legal) {
      const w = line.split(" ");
      if (w[0] === "REMOVE") removals[w[1]] = "DICE " + line;
      else if (w[0] === "MOVE") {
        const value = w.length > 2 && /^\d$/.test(w[2]) ? Number(w[2]) : null;
        const dir = w.length > 3 ? w[3] : (w.length === 3 && DIRS[w[2]] ? w[2] : null);
        const n = value !== null ? value : (grid[w[1]] || {}).value;
        if (dir && value !== null) {
          (moves[w[1]] = moves[w[1]] || []).push({ to: cellAt(w[1], dir, n), line: "DICE " + line });
        } else (still[w[1]] = still[w[1]] || []).push("DICE " + line);
      }
    }
    const from = pick && pick.kind === "die" ? pick.value : null;
    const targets = {};
    for (const m of (from && moves[from]) || []) if (m.to) targets[m.to] = m.line;
    const last = v.last_move || {};
    // the grid's one tab stop: the cell the keyboard was on, else the die picked, else
    // the first die that can act, else the last move's cell
    const acting = Object.keys(removals).concat(Object.keys(moves), Object.keys(still));
    if (!gridCell || !/^[a-f][1-6]$/.test(gridCell)) gridCell = null;
    const stop = gridCell || from || acting[0] || last.to || "a1";
    const table = h("table", { class: "board dice play", role: "grid", "aria-label": "Triad Dice board, row 6 at the top",
                               onkeydown: gridKeys, onfocusin: gridFocused });
    table.appendChild(h("tr", {}, h("td", {}), [...COLS].map((c) => h("th", { scope: "col" }, c))));
    for (let r = 6; r >= 1; r--) {
      const tr = h("tr", {}, h("th", { scope: "row" }, String(r)));
      for (const c of COLS) {
        const cell = c + r, d = grid[cell];
        let cls = "cell";
        let label = cell + ": " + (d ? (d.seat === p.seat ? "your " : (names[d.seat] || "") + "'s ") + d.value : "empty");
        let onclick = null, title = null;
        if (cell === last.from || cell === last.to) { cls += " last"; label += cell === last.to ? ", moved here last" : ", moved from here last"; }
        if (last.removed === cell) { cls += " last"; label += ", removed last"; }
        if (targets[cell]) { cls += " target"; label += ", move here (" + targets[cell] + ")"; onclick = act(targets[cell]); title = targets[cell]; }
        else if (removals[cell]) { cls += " target"; label += ", remove it (" + removals[cell] + ")"; onclick = act(removals[cell]); title = removals[cell]; }
        else if (moves[cell] || still[cell]) {
          cls += " movable" + (from === cell ? " picked" : "");
          label += from === cell ? ", selected" : ", can move";
          onclick = choose("die", cell);
        }
        const face = d ? h("span", { class: "die s" + d.seat, "aria-hidden": "true" }, String(d.value)) : h("span", { class: "empty", "aria-hidden": "true" }, "·");
        const td = h("td", {});
        const tabindex = cell === stop ? 0 : -1;
        td.appendChild(onclick ? h("button", { type: "button", class: cls, "aria-label": label, title: title, "data-key": "die:" + cell, tabindex: tabindex, onclick: onclick }, face)
                               : h("span", { class: cls, role: "img", "aria-label": label, "data-key": "die:" + cell, tabindex: tabindex }, face));
        tr.appendChild(td);
      }
      table.appendChild(tr);
    }
    const facts = h("ul", { class: "facts" },
      [0, 1].map((i) => h("li", {}, h("span", { class: "die s" + i + " mini", "aria-hidden": "true" }, i ? "■" : "●"), " ",
                                    nameLink(names[i]), ": " + v.removed[i] + " of " + v.to_win + " removals")),
      last.to ? h("li", {}, "Last move: " + last.from + " to " + last.to + (last.removed ? ", removed " + last.removed : "") + ".") : null);
    const controls = h("div", { class: "controls" });
    if (from && still[from]) for (const line of still[from]) controls.appendChild(button(line.slice(5), line));
    if (Object.keys(removals).length) controls.appendChild(h("p", { class: "tip" }, "You formed a Triad: click one of your highlighted dice to remove it."));
    else if (Object.keys(moves).length || Object.keys(still).length) {
      controls.appendChild(h("p", { class: "tip" }, from ? "Now click a highlighted square (or the die again to drop it)." : "Click one of your dice, then the square to move it to."));
    }
    const actions = h("div", { class: "controls actions" });
    if (mine(p) && !p.finished) actions.appendChild(askFirst("Resign", "Really resign?", "DICE RESIGN"));
    return h("div", { class: "game-dice" }, table, facts, controls, actions.firstChild ? actions : null);
  }

  // The Dice board is a grid with one tab stop (a roving tabindex): the arrow keys move
  // among its 36 cells, Home and End to the ends of a row (with Ctrl, to the board's first
  // and last cells), and Enter or Space acts on a cell that is a button.
  let gridCell = null;    // the cell the keyboard was last on, in this game
  function gridKeys(ev) {
    const at = ev.target.getAttribute && ev.target.getAttribute("data-key");
    if (!at || !at.startsWith("die:") || ev.altKey || ev.metaKey) return;
    let c = COLS.indexOf(at[4]), r = Number(at[5]);
    if (ev.key === "ArrowLeft") c -= 1;
    else if (ev.key === "ArrowRight") c += 1;
    else if (ev.key === "ArrowUp") r += 1;
    else if (ev.key === "ArrowDown") r -= 1;
    else if (ev.key === "Home") { c = 0; if (ev.ctrlKey) r = 6; }
    else if (ev.key === "End") { c = 5; if (ev.ctrlKey) r = 1; }
    else return;
    ev.preventDefault();
    const el = c >= 0 && c < 6 && r >= 1 && r <= 6 ? ev.currentTarget.querySelector('[data-key="die:' + COLS[c] + r + '"]') : null;
    if (el) el.focus();
  }
  function gridFocused(ev) {
    const at = ev.target.getAttribute && ev.target.getAttribute("data-key");
    if (!at || !at.startsWith("die:")) return;
    for (const el of ev.currentTarget.querySelectorAll('[tabindex="0"]')) el.tabIndex = -1;
    ev.target.tabIndex = 0;
    gridCell = at.slice(4);
  }

  // -- Pyramid -------------------------------------------------------------------------------
  const RANKS = { A: 1, J: 11, Q: 12, K: 13 };
  function rank(text) { const r = text.slice(0, -1); return RANKS[r] || Number(r); }
  // A card in words, as the game's spoken lines name it: "QH" is "queen of hearts".
  const RANK_WORDS = { A: "ace", J: "jack", Q: "queen", K: "king" };
  const SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  function cardWords(text) {
    const r = text.slice(0, -1);
    return (RANK_WORDS[r] || r) + " of " + (SUIT_WORDS[text.slice(-1)] || text.slice(-1));
  }
  function spotOf(i) {
    let row = 1; while ((row * (row + 1)) / 2 <= i) row++;
    return row + "," + (i - (row * (row - 1)) / 2 + 1);
  }
  function pyramid(p, v) {
    const playing = myMove(p) && !v.over;
    const picked = pick && pick.kind === "card" ? pick.value : null;
    // the last move, as the server's view tells it (this game's only: a new deal has none)
    const last = v.last_move && v.last_move.game_no === v.game_no ? v.last_move : null;
    const gone = new Set(last && last.kind === "remove" ? last.spots.filter((x) => x !== "P" && x !== "W") : []);
    const turned = last && last.kind === "deal";
    const hinted = new Set(hint || []);
    function card(entry, spot, avail, what) {
      if (!entry) {
        return h("span", { class: "card gone" + (gone.has(spot) ? " last" : ""), role: "img", "aria-label": spot + ": " + (gone.has(spot) ? "removed by the last move" : "removed") }, gone.has(spot) ? "✓" : "·");
      }
      const red = entry.red ? " red" : "";
      const label = (what || spot) + ": " + cardWords(entry.text) + (avail ? "" : ", covered");
      if (!playing || !avail) return h("span", { class: "card" + red + (avail ? " avail" : ""), role: "img", "aria-label": label }, entry.text);
      let cls = "card avail" + red + (hinted.has(spot) ? " hint" : "");
      let onclick;
      if (rank(entry.text) === 13) { onclick = act("PYR " + spot); }
      else if (picked && picked.spot !== spot) {
        const pair = rank(picked.text) + rank(entry.text) === 13;
        cls += pair ? " target" : "";
        onclick = act("PYR " + picked.spot + " " + spot);
      } else {
        cls += picked && picked.spot === spot ? " picked" : "";
        onclick = (ev) => { ev.preventDefault(); pick = picked && picked.spot === spot ? null : { kind: "card", value: { spot: spot, text: entry.text } }; draw(ev.detail === 0 ? "card:" + spot : null); };
      }
      // named by its content, the card in words (its code is drawn, not read), so the
      // name holds all that is read of what it shows
      return h("button", { type: "button", class: cls, "data-key": "card:" + spot,
                           "aria-pressed": picked && picked.spot === spot ? "true" : null, onclick: onclick },
               h("span", { "aria-hidden": "true" }, entry.text),
               h("span", { class: "sr" }, label + (rank(entry.text) === 13 ? ", a King: click to remove it" : picked && picked.spot === spot ? ", selected" : "")));
    }
    const rows = h("div", { class: "board pyramid play", role: "group", "aria-label": "Pyramid" });
    for (let row = 1; row <= 7; row++) {
      const line = h("div", { class: "prow" });
      for (let col = 1; col <= row; col++) {
        const i = (row * (row - 1)) / 2 + col - 1, e = v.pyramid[i];
        line.appendChild(card(e, row + "," + col, e && e.available));
      }
      rows.appendChild(line);
    }
    const wasteTop = v.waste_top ? card(v.waste_top, "W", true, "Waste top" + (turned ? " (turned up by the last move)" : "")) : h("span", { class: "card gone" }, "—");
    if (turned && v.waste_top) wasteTop.classList.add("last");
    const stock = h("div", { class: "stock" },
      h("span", { class: "pile" }, "Pack (" + v.pack_count + ") ", v.pack_top ? card(v.pack_top, "P", true, "Pack top") : h("span", { class: "card gone" }, "—")),
      h("span", { class: "pile" }, "Waste (" + v.waste_count + ") ", wasteTop));
    const controls = h("div", { class: "controls" });
    const actions = playing ? h("div", { class: "controls actions" },
      button(v.pack_count ? "Draw from the Pack (D)" : "Redeal (D)", "PYR D"),
      button("Hint", "PYR HINT"),
      askFirst("End this game", "Really end this game?", "PYR END")) : null;
    if (playing) controls.appendChild(h("p", { class: "tip" }, picked ? "Now click a card that makes 13 with the " + cardWords(picked.text) + " (or it again to drop it)." : "Click two cards that make 13, or a King alone."));
    const facts = h("ul", { class: "facts" },
      h("li", {}, "Deal " + v.deal + ", " + v.redeals_left + " redeal" + (v.redeals_left === 1 ? "" : "s") + " left" + (v.games > 1 ? "; game " + v.game_no + " of " + v.games : "") + "."),
      v.over ? h("li", {}, "Game over" + (v.how ? " (" + v.how + ")" : "") + (v.score !== null ? ": score " + v.score : "") + ".") : null,
      last ? h("li", { id: "lastmove", class: "lastmove" }, "Last move: " + pyramidLast(last) + ".") : null);
    return h("div", { class: "game-pyramid" }, rows, stock, controls, actions, facts);
  }
  function pyramidLast(last) {
    const where = (x) => x === "P" ? "the Pack" : x === "W" ? "the Waste Pile" : x;
    if (last.kind === "remove") return "removed the " + last.cards.map((c, i) => cardWords(c) + " (" + where(last.spots[i]) + ")").join(" and the ");
    if (last.kind === "deal") return "turned the " + cardWords(last.cards[0]) + " from the Pack to the Waste Pile";
    if (last.kind === "redeal") return "redealt the Waste Pile";
    return "ended the game";
  }
  function pyramidHidden(p, v) {
    return h("div", { class: "board pyramid hidden" }, h("p", {}, v.note || "This deal is hidden for now."));
  }

  // -- Triptycha -----------------------------------------------------------------------------
  const TW = 120, TH = 104;
  const UP = [true, true, false, true, true, false, true, false, true];
  function nichePoints(n) {
    const rows = [[1], [2, 3, 4], [5, 6, 7, 8, 9]];
    for (let r = 0; r < 3; r++) {
      const j = rows[r].indexOf(n);
      if (j < 0) continue;
      const x0 = (2 - r) * TW / 2;
      if (j % 2 === 0) {
        const k = j / 2;
        return [[x0 + k * TW + TW / 2, r * TH], [x0 + k * TW, (r + 1) * TH], [x0 + k * TW + TW, (r + 1) * TH]];  // T, BL, BR
      }
      const k = (j - 1) / 2;
      return [[x0 + k * TW + TW / 2, r * TH], [x0 + k * TW + TW * 3 / 2, r * TH], [x0 + (k + 1) * TW, (r + 1) * TH]];  // TL, TR, B
    }
  }
  function cornerLabels(pts, corners, into) {
    const cx = (pts[0][0] + pts[1][0] + pts[2][0]) / 3, cy = (pts[0][1] + pts[1][1] + pts[2][1]) / 3;
    corners.forEach((value, i) => {
      const x = pts[i][0] + (cx - pts[i][0]) * 0.42, y = pts[i][1] + (cy - pts[i][1]) * 0.42 + 5;
      into.appendChild(s("text", { x: x, y: y, class: "corner", text: String(value) }));
    });
    return [cx, cy];
  }
  function letters(names) {
    const a = (names[0] || "1")[0].toUpperCase(), b = (names[1] || "2")[0].toUpperCase();
    return a === b ? ["1", "2"] : [a, b];
  }
  function triptycha(p, v, names) {
    const seat = p.seat, mark = letters(names);
    const lastMove = v.last_move || null;
    const playing = myMove(p);
    const hand = mine(p) && v.hands && v.hands[seat] ? v.hands[seat] : [];
    const picked = pick && pick.kind === "tile" ? hand.find((t) => t.n === pick.value && t.niche === null) : null;
    const svg = s("svg", { class: "board triptycha play", viewBox: "-4 -4 " + (3 * TW + 8) + " " + (3 * TH + 8), role: "group", "aria-label": "Triptycha board" });
    for (let n = 1; n <= 9; n++) {
      const cell = v.board[n - 1], pts = nichePoints(n);
      const laid = cell && lastMove && lastMove.niche === n, flipped = cell && lastMove && lastMove.flipped.includes(n);
      const target = playing && v.phase === "play" && picked && !cell && UP[n - 1] === picked.up;
      let cls = "niche" + (cell ? " own" + cell.controller + " seat" + cell.controller : "") + (laid ? " last" : "") + (flipped ? " flipped" : "") + (target ? " target" : "");
      let label = "Niche " + n + (UP[n - 1] ? " (points up)" : " (points down)") + ": ";
      if (cell) label += (cell.controller === seat ? "yours" : (names[cell.controller] || "") + "'s") + ", " + cornerWords(cell.corners, UP[n - 1]) + ", primary " + cell.primary + (laid ? ", laid last" : "") + (flipped ? ", just taken" : "");
      else label += "empty" + (target ? ", lay tile " + picked.n + " here" : "");
      const g = s("g", { class: cls, "data-key": "niche:" + n });
      g.appendChild(s("title", { text: label }));
      g.appendChild(s("polygon", { points: pts.map((q) => q.join(",")).join(" ") }));
      const up = UP[n - 1];
      const cx = (pts[0][0] + pts[1][0] + pts[2][0]) / 3, cy = (pts[0][1] + pts[1][1] + pts[2][1]) / 3;
      g.appendChild(s("text", { x: cx, y: up ? cy + 24 : cy - 16, class: "n", text: String(n) }));
      if (cell) {
        cornerLabels(pts, cell.corners, g);
        g.appendChild(s("text", { x: cx, y: cy + 5, class: "primary", text: String(cell.primary) }));
        g.appendChild(s("text", { x: cx + (up ? 0 : 0), y: up ? cy - 12 : cy + 24, class: "owner", text: mark[cell.controller] }));
      }
      if (target) {
        g.setAttribute("role", "button");
        g.setAttribute("tabindex", "0");
        g.setAttribute("aria-label", label);
        const line = "TT LAY " + picked.n + " IN " + n;
        g.addEventListener("click", act(line));
        g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); E.command(line, { detail: 0 }); } });
      } else {
        g.setAttribute("role", "img");
        g.setAttribute("aria-label", label);
      }
      svg.appendChild(g);
    }
    const legend = h("ul", { class: "facts" },
      [0, 1].map((i) => h("li", {}, h("span", { class: "swatch own" + i, "aria-hidden": "true" }, mark[i]), " ", nameLink(names[i]),
        ": " + v.counts[i] + " niche" + (v.counts[i] === 1 ? "" : "s") + ", " + v.unplayed[i] + " in hand")),
      lastMove ? h("li", { id: "lastmove", class: "lastmove" }, "Last move: " + (names[lastMove.seat] || "Seat " + (lastMove.seat + 1)) + " laid a tile in niche " + lastMove.niche +
        (lastMove.flipped.length ? " and took " + niches(lastMove.flipped) : "") + ".") : null,
      h("li", {}, "Phase: " + v.phase + ". Rules: " + v.rules_text + "."));
    const controls = h("div", { class: "controls" });
    const actions = h("div", { class: "controls actions" });   // kept in view on a phone
    if (v.phase === "draw" && mine(p) && v.deck) {
      // the rules draw one tile at a time (TT DRAW <tile>): each tile is a button, and one
      // more draws the first tiles left in deck order, one TT DRAW each, to fill the hand
      const drawn = hand.length, full = v.hand_full[seat], left = full - drawn;
      const owed = left === 1 ? "1 draw left" : left + " draws left";
      controls.appendChild(h("p", { class: "tip" }, playing ? "Choose your hand: " + owed + " (" + drawn + " of " + full + " in hand). Click a tile to draw it:" : "Drawn " + drawn + " of " + full + "; waiting for the other player."));
      const free = v.deck.filter((d) => !d.drawn).map((d) => "TT DRAW " + d.pos).slice(0, left);
      if (playing && free.length > 1) {
        actions.appendChild(h("button", { type: "button", class: "act", title: free.join("; "), "data-key": "drawall",
          onclick: (ev) => { ev.preventDefault(); for (const line of free) E.command(line, ev); } },
          "Draw all " + free.length + " at once (deck order)"));
      }
      const deck = h("div", { class: "tiles deck" });
      for (const d of v.deck) {
        deck.appendChild(tileButton(d.tile.corners, d.tile.primary, d.pos + ". " + d.tile.name, true,
          playing && !d.drawn ? act("TT DRAW " + d.pos) : null, d.drawn ? "drawn" : "", "deck:" + d.pos,
          cornerWords(d.tile.corners, true) + ", primary " + d.tile.primary + (d.drawn ? ", drawn" : playing ? ", draw it (" + owed + ")" : ""), playing && !d.drawn ? "TT DRAW " + d.pos : null));
      }
      controls.appendChild(deck);
    }
    if (hand.length && v.phase !== "draw") {
      const row = h("div", { class: "tiles hand", role: "group", "aria-label": "Your hand" });
      for (const t of hand) {
        if (t.niche !== null) continue;
        const sel = picked && picked.n === t.n;
        row.appendChild(tileButton(t.corners, t.tile.primary, t.n + ". " + t.tile.name, t.up,
          playing && v.phase === "play" ? choose("tile", t.n) : null, sel ? "picked" : "", "tile:" + t.n,
          cornerWords(t.corners, t.up) + ", primary " + t.tile.primary + ", points " + (t.up ? "up" : "down") + (sel ? ", selected" : "")));
      }
      controls.appendChild(h("p", { class: "tip" }, playing && v.phase === "play" ? (picked ? "Tile " + picked.n + ": click an empty niche that points " + (picked.up ? "up" : "down") + ", or turn it:" : "Click a tile in your hand, then a niche.") : "Your hand:"));
      controls.appendChild(row);
      if (picked && playing) {
        actions.appendChild(button("Rotate tile " + picked.n, "TT ROTATE " + picked.n, { "data-key": "rotate" }));
        actions.appendChild(button("Flip tile " + picked.n, "TT FLIP " + picked.n, { "data-key": "flip" }));
      }
    }
    if (v.phase === "trading" && playing) {
      controls.appendChild(h("p", { class: "tip" }, "You won: take " + (v.take || "your") + " tile(s) from the loser's hand, then Done."));
      const other = v.hands && v.hands[1 - seat] ? v.hands[1 - seat] : [];
      for (const n of v.takeable || []) {
        const t = other.find((x) => x.n === n);
        controls.appendChild(button("Take " + n + (t ? ": " + t.tile.name : ""), "TT TAKE " + n));
      }
      actions.appendChild(button("Done", "TT DONE"));
    }
    if (mine(p) && !p.finished && v.phase !== "trading") actions.appendChild(askFirst("Resign", "Really resign?", "TT RESIGN"));
    return h("div", { class: "game-tt" }, svg, legend, controls, actions.firstChild ? actions : null);
  }
  // A tile's corner numbers in words, each with its corner (an up tile's are top, bottom
  // left, bottom right; a down tile's top left, top right, bottom): "3-5-7" is read out
  // as a subtraction.
  function cornerWords(corners, up) {
    const at = up ? ["top", "bottom left", "bottom right"] : ["top left", "top right", "bottom"];
    return "corners " + corners.map((c, i) => at[i] + " " + c).join(", ");
  }
  function niches(list) {
    const n = list.map(String);
    return (n.length > 1 ? "niches " + n.slice(0, -1).join(", ") + " and " + n[n.length - 1] : "niche " + n[0]);
  }
  function tileButton(corners, primary, text, up, onclick, extra, key, label, line) {
    const pts = up ? [[30, 2], [2, 50], [58, 50]] : [[2, 2], [58, 2], [30, 50]];
    const pic = s("svg", { viewBox: "0 0 60 52", class: "tilepic", "aria-hidden": "true" },
      s("polygon", { points: pts.map((q) => q.join(",")).join(" ") }));
    corners.forEach((value, i) => {
      const cx = 30, cy = up ? 34 : 18;
      pic.appendChild(s("text", { x: pts[i][0] + (cx - pts[i][0]) * 0.45, y: pts[i][1] + (cy - pts[i][1]) * 0.45 + 4, class: "corner", text: String(value) }));
    });
    pic.appendChild(s("text", { x: 30, y: up ? 38 : 22, class: "primary", text: String(primary) }));
    const kids = [pic, h("span", { class: "tilename" }, text), h("span", { class: "sr" }, ", " + label)];
    if (!onclick) return h("span", { class: "tile " + extra }, kids);
    return h("button", { type: "button", class: "tile " + extra, onclick: onclick, "data-key": key, title: line || null,
                         "aria-pressed": extra === "picked" ? "true" : null }, kids);
  }

  // -- Triad ---------------------------------------------------------------------------------
  const COLOR = { R: "Red", G: "Green", P: "Purple", B: "Black" };
  function triadCard(code, extra) {
    const letter = code === "C" ? "C" : code.slice(-1);
    return h("span", { class: "tcard c" + letter + (extra ? " " + extra : "") },
             h("span", { "aria-hidden": "true" }, code), h("span", { class: "sr" }, cardName(code)));
  }
  function cardName(code) {
    if (code === "C") return "Capstone";
    const d = Number(code.slice(0, -1));
    return (COLOR[code.slice(-1)] || "") + " " + ({ 12: "Princess", 13: "Prince", 14: "Pyramid" }[d] || d);
  }
  function triadLast(m, name, me) {
    const who = m.seat === me ? "you" : name;
    const s = m.seat === me ? "" : "s";
    const allIn = m.all_in ? " (all in)" : "";
    if (m.kind === "DEAL") return "a new hand dealt by " + who;
    if (m.kind === "PASS") return who + " pass" + (s ? "es" : "");
    if (m.kind === "EQUAL") return who + " equal" + s + " the bet" + (m.amount ? " with " + m.amount : "") + allIn;
    if (m.kind === "RAISE") return who + " raise" + s + " " + m.amount + allIn;
    if (m.kind === "FOLD") return who + " fold" + s;
    if (m.kind === "DRAW") return m.amount ? who + " discard" + s + " " + m.amount + " and draw" + s + " " + m.amount : who + " keep" + s + " all six cards";
    return who + ": " + m.kind;
  }
  function triad(p, v, names) {
    const me = v.viewer;   // the viewer's position at the table (p.seat is their seat in the game's list)
    const tableNames = v.names || names;
    const rows = h("table", { class: "board triad play" },
      h("thead", {}, h("tr", {}, ["Seat", "Player", "Cubits", "Bet", "Status", "Cards"].map((t) => h("th", { scope: "col" }, t)))));
    const tb = h("tbody");
    const lastMove = v.last_move || null;
    for (const st of v.seats) {
      if (st.empty) continue;
      const acting = v.to_act === st.seat, lastRow = lastMove && lastMove.kind !== "DEAL" && lastMove.seat === st.seat;
      tb.appendChild(h("tr", { class: (acting ? "acting" : "") + (lastRow ? " last" : "") || null },
        h("td", {}, String(st.seat + 1) + (v.dealer === st.seat ? " (dealer)" : "")),
        h("td", {}, nameLink(tableNames[st.seat]), acting ? " — to act" : ""),
        h("td", {}, String(st.stack)), h("td", {}, String(st.bet)), h("td", {}, st.status + (st.drew !== null && st.drew !== undefined ? ", drew " + st.drew : "")),
        h("td", {}, st.cards && st.cards.length && st.seat !== me ? st.cards.map((c) => triadCard(c)) : st.hidden_cards ? st.hidden_cards + " face down" : st.seat === me ? "your hand below" : "—")));
    }
    rows.appendChild(tb);
    const facts = h("ul", { class: "facts" },
      h("li", {}, "Hand " + v.hand_no + ": " + v.phase_name + "."),
      h("li", {}, "Pot " + v.pot + "; current bet " + v.current_bet + "; opening " + v.opening + (v.limit ? ", limit " + v.limit : "") + "."),
      lastMove ? h("li", { id: "lastmove", class: "lastmove" }, "Last move: " + triadLast(lastMove, tableNames[lastMove.seat] || "Seat " + (lastMove.seat + 1), me) + ".") : null);
    const controls = h("div", { class: "controls" });
    const actions = h("div", { class: "controls actions" });   // kept in view on a phone
    const seatMe = me !== null && me !== undefined ? v.seats[me] : null;
    const myTurn = seatMe && v.to_act === me && !p.finished;
    if (seatMe && seatMe.cards && seatMe.cards.length) {
      const drawing = myTurn && v.phase === "draw";
      const chosen = drawing && pick && pick.kind === "discard" ? pick.value : [];
      const hand = h("div", { class: "tiles hand", role: "group", "aria-label": "Your hand" });
      seatMe.cards.forEach((code, i) => {
        const pos = i + 1, on = chosen.includes(pos);
        const label = drawing ? (on ? ", to discard" : ", to keep") : "";
        if (drawing) {
          hand.appendChild(h("button", { type: "button", class: "tcardbtn" + (on ? " picked" : ""), "aria-pressed": on ? "true" : "false", "data-key": "tcard:" + pos,
            onclick: (ev) => {
              ev.preventDefault();
              const next = on ? chosen.filter((x) => x !== pos) : chosen.concat([pos]).slice(0, 4);
              pick = { kind: "discard", value: next.sort() };
              draw(ev.detail === 0 ? "tcard:" + pos : null);
            } }, h("span", { class: "pos" }, String(pos)), " ", triadCard(code), h("span", { class: "sr" }, label)));
        } else hand.appendChild(h("span", { class: "tcardbtn" }, h("span", { class: "pos" }, String(pos)), " ", triadCard(code), h("span", { class: "sr" }, label)));
      });
      controls.appendChild(h("p", { class: "tip" }, "Your hand" + (seatMe.hand_name ? ": " + seatMe.hand_name : "") + (drawing ? ". Click up to four cards to throw away, then Draw; or Stand." : ".")));
      controls.appendChild(hand);
      if (drawing) {
        if (chosen.length) actions.appendChild(button("Discard " + chosen.join(" ") + " and draw", "TRIAD DISCARD " + chosen.join(" ")));
        actions.appendChild(button("Stand (keep all six)", "TRIAD STAND"));
      }
    }
    if (myTurn && (v.phase === "bet1" || v.phase === "bet2") && "to_equal" in v) {
      const bets = actions;
      if (v.to_equal === 0) bets.appendChild(button("Pass", "TRIAD PASS"));
      else {
        bets.appendChild(button("Equal " + v.to_equal + (v.all_in ? " (all in)" : ""), "TRIAD EQUAL"));
        bets.appendChild(button("Fold", "TRIAD FOLD", { class: "act quiet" }));
      }
      if (v.raise_range) {
        const [lo, hi] = v.raise_range;
        const amount = h("input", { type: "number", id: "raise-amount", min: lo, max: hi, value: lo, inputmode: "numeric", "aria-label": "Raise by (" + lo + " to " + hi + ")" });
        const go = h("button", { type: "button", class: "act", onclick: (ev) => {
          ev.preventDefault();
          const n = Math.max(lo, Math.min(hi, Math.floor(Number(amount.value) || lo)));
          E.command("TRIAD RAISE " + n, ev);
        } }, "Raise");
        bets.appendChild(h("span", { class: "raise" }, h("label", { for: "raise-amount" }, "by "), amount, go));
      }
    }
    if (seatMe && !p.finished) {
      const t = v.table || {};
      if (v.phase === "hand_over") {
        actions.appendChild(button(t.started ? "Deal the next hand" : "Deal the first hand", t.started ? "TRIAD DEAL" : "TRIAD START"));
        if (!(t.computer || []).length || !t.started) actions.appendChild(button("Seat a computer player (" + computerLevel + ")", "TRIAD BOT " + computerLevel.toUpperCase()));
      }
      actions.appendChild(button("Leave the table", "TRIAD LEAVE", { class: "act quiet" }));
    }
    return h("div", { class: "game-triad" }, rows, facts, controls, actions.firstChild ? actions : null);
  }

  // -- notices: your move ----------------------------------------------------------------------
  const baseTitle = document.title;
  const icon = document.querySelector('link[rel="icon"]');
  const baseIcon = icon ? icon.getAttribute("href") : null;
  function notice(p) {
    const now = Boolean(p) && myMove(p);
    document.title = (now ? "● Your move · " : "") + baseTitle;
    if (icon) icon.setAttribute("href", now ? "/static/favicon-move.svg" : baseIcon);
    if (now && !wasMyMove) {
      const sound = document.getElementById("opt-sound");
      if (sound && sound.checked) beep();
      if (document.hidden && window.Notification && Notification.permission === "granted") {
        try { new Notification("Your move", { body: "Game #" + p.game + ": " + (p.title || ""), tag: "esterport-move" }); } catch (e) { /* not allowed here */ }
      }
    }
    wasMyMove = now;
  }
  let audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const o = audio.createOscillator(), g = audio.createGain();
      o.frequency.value = 660; g.gain.value = 0.08;
      o.connect(g); g.connect(audio.destination);
      o.start(); o.stop(audio.currentTime + 0.15);
    } catch (e) { /* no sound */ }
  }

  // -- wiring ----------------------------------------------------------------------------------
  document.addEventListener("gmcp", (ev) => {
    const pkg = ev.detail.pkg, p = ev.detail.data;
    if (!/\.Game$/.test(pkg) || !p || typeof p.game !== "number" || !p.view) return;
    if (p.left) {
      // your seat is gone (you left the table, resigned from it, or were stood up): the
      // last frame you are sent of that game, so the pane goes back to the lobby
      if (!shown || shown.game === p.game) {
        toLobby("You have left game #" + p.game + " (" + (p.title || "a game") + ")." +
                (p.finished && p.result ? " " + p.result : ""));
      }
      return;
    }
    // A game you play wins over one you watch; a finished one stays until another starts.
    if (shown && shown.game !== p.game && mine(shown) && !shown.finished && !mine(p)) return;
    if (shown && shown.game === p.game) {
      if (p.version < shown.version) return;
      if (p.version !== shown.version) { if (!keepsPick(p)) pick = null; hint = null; }
    } else { pick = null; hint = null; asking = null; gridCell = null; }
    lobbyNote = "";
    // the clock, if the game has one: the seconds left as the server sent them, counted
    // down here between updates
    clockEnd = p.clock && !p.finished ? Date.now() + p.clock.left * 1000 : 0;
    shown = p;
    pane.dataset.game = String(p.game);
    pane.dataset.kind = (p.view && p.view.game) || "";
    pane.dataset.version = String(p.version);
    pane.dataset.finished = p.finished ? "1" : "";
    const keep = document.activeElement && pane.contains(document.activeElement) ? document.activeElement.getAttribute("data-key") : null;
    draw(keep);
    notice(p);
    const turn = turnText(p);
    if (turn !== lastTurn) { lastTurn = turn; say(turn); }
  });
  // A tile picked in Triptycha stays picked while it is still in your hand to lay and it
  // is still your move: a Flip or a Rotate is a move of its own, and turning the tile is
  // why it was picked. Anything else picked is dropped when the game moves on.
  function keepsPick(p) {
    if (!pick || pick.kind !== "tile" || !myMove(p)) return false;
    const v = p.view || {}, hand = v.hands && v.hands[p.seat];
    return v.phase === "play" && Boolean(hand && hand.find((t) => t.n === pick.value && t.niche === null));
  }
  document.addEventListener("esterport:output", (ev) => {
    const m = /Hint: PYR ([^()]+?) \(/.exec(ev.detail);
    if (m && shown && shown.view && shown.view.game === "pyramid") {
      hint = m[1].trim().split(/\s+/);
      draw();
    }
  });
  document.addEventListener("esterport:login", (ev) => { me = ev.detail; toLobby(""); });
  document.addEventListener("esterport:account", (ev) => {
    if (me) return;
    lobbyNote = ev.detail.said || "That did not work: the terminal says why.";
    draw();
    say(lobbyNote);
  });
  // the open seeks, as GMCP tells them: the whole list at login, then each change
  document.addEventListener("gmcp", (ev) => {
    const pkg = ev.detail.pkg, d = ev.detail.data;
    if (pkg === "Seek.List" && Array.isArray(d)) { seeks = {}; for (const k of d) seeks[k.id] = k; }
    else if (pkg === "Seek.Add" && d && d.id !== undefined) seeks[d.id] = d;
    else if (pkg === "Seek.Remove" && d) delete seeks[d.id];
    else return;
    if (!shown) lists(pane);
  });
  setInterval(tick, 1000);
  const notify = document.getElementById("opt-notify");
  if (notify) {
    if (!window.Notification) notify.hidden = true;
    notify.addEventListener("click", (ev) => {
      ev.preventDefault();
      Notification.requestPermission().then((r) => { notify.textContent = r === "granted" ? "Notifications on" : "Notifications blocked"; });
      E.refocus(ev);
    });
  }
  draw();
})();
