// The board pane of /play: the game you are in, drawn from the GMCP view the server
// sends the terminal (the same data, no second source), and played by pointing. Every
// click sends the very command a player would type (window.esterport.command shows it in
// the scrollback too), so pointing teaches the typed commands. Keyboard: every target is a
// button (Tab, Enter, Space). The board in words is the game's own screen-reader lines.
// The pane's live region (#pane-says, never redrawn) says whose move it is as the pane
// shows it, and the questions the pane asks.
//
// This file names no game. What the pane knows of each game is the page's data-games
// (its GMCP package, prefix, title, and the address of its own pane's script and styles,
// from the game's web folder). A game's pane script registers its drawing here
// (window.esterport.pane.register) and is loaded, with its styles, when a frame of that
// game first arrives; a game with none gets the generic pane: its view as text and its
// legal moves (the frame's ``legal``) as buttons.
"use strict";
(function () {
  const pane = document.getElementById("pane");
  if (!pane || !window.esterport) return;
  const E = window.esterport;
  const SVGNS = "http://www.w3.org/2000/svg";
  // each game, as the page describes it: {key, prefix, title, gmcp, pairs, js, css}
  const GAMES = (() => { try { return JSON.parse(pane.dataset.games || "[]"); } catch (e) { return []; } })();
  const BY_PACKAGE = {};
  for (const g of GAMES) BY_PACKAGE[g.gmcp] = g;
  const panes = {};       // the panes games registered, by game key
  const loads = {};       // a game's pane being loaded (true) or failed to (false), by key

  let shown = null;       // the payload drawn: {game, seat, version, view, ...}
  let clockEnd = 0;       // when the game's clock runs out (this page's Date.now()), 0: none
  let pick = null;        // what the player has selected: {kind, value}
  let kind = null;        // the game of ``shown``, as data-games describes it
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
    const own = paneOf(kind);
    if (own) box.appendChild(own.draw(p, v, names));
    else if (!ready(kind)) box.appendChild(h("p", { class: "tip" }, "Loading the board…"));
    else box.appendChild(generic(p, v, names));
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
    const c = p.clock, left = mmss(clockEnd - Date.now());
    const name = (p.players || [])[c.seat] || "Seat " + (c.seat + 1);
    const own = paneOf(kind), said = own && own.clock ? own.clock(p, left, name) : null;
    if (said) return said;   // the game's own words for its clock (a phase with a deadline)
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
    const own = paneOf(kind), extra = own && own.turn ? own.turn(p) : "";   // "Turn 3. "
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
    const box = h("div", { class: "controls" });
    if (kind && kind.pairs && mine(p)) box.appendChild(button("Rematch", kind.prefix + " REMATCH"));
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
    const levels = h("fieldset", { class: "levels" }, h("legend", {}, "The computer plays"),
      LEVELS.map((l) => h("label", {}, h("input", { type: "radio", name: "level", value: l, "data-key": "level:" + l,
        checked: l === computerLevel, onchange: (ev) => {
          computerLevel = ev.target.value;
          for (const b of pane.querySelectorAll("[data-level]")) b.title = level(b.getAttribute("data-level"));
        } }), " " + l[0].toUpperCase() + l.slice(1))));
    const challenged = h("input", { id: "challenge-name", list: "online", autocomplete: "off", autocapitalize: "off",
      spellcheck: "false", value: challengeName, oninput: (ev) => { challengeName = ev.target.value; } });
    const kinds = h("select", { id: "challenge-game", onchange: (ev) => { challengeGame = ev.target.value; } },
      CHALLENGES.map(([line, title]) => h("option", { value: line, selected: line === challengeGame }, title)));
    const challenge = h("form", { class: "challenge", onsubmit: (ev) => {
      ev.preventDefault();
      const name = challengeName.trim().split(/\s+/)[0];
      if (!name) { challenged.focus(); return; }
      E.command(challengeGame + " " + name, ev);
    } },
      h("label", { for: "challenge-name" }, "Name"), challenged,
      h("label", { for: "challenge-game" }, "Game"), kinds,
      h("button", { type: "submit", class: "act" }, "Challenge"),
      h("datalist", { id: "online" }));
    const box = h("div", { class: "lobby" }, note,
      h("h2", { id: "pane-title" }, "Start a game"),
      h("p", {}, "Each button types its command for you, in the terminal."),
      levels,
      starts(level),
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

  // The buttons that start a game, one or more a game (the page's #pane-start: a game's
  // own, games/<key>/start.html, or "<title> vs computer"): a button with data-level
  // types its command with the computer's level chosen, one with data-line its line.
  function starts(level) {
    const box = h("div", { class: "controls" });
    const made = document.getElementById("pane-start");
    if (!made) return box;
    box.appendChild(made.content.cloneNode(true));
    for (const b of box.querySelectorAll("button[data-level]")) {
      const cmd = b.getAttribute("data-level");
      b.title = level(cmd);
      b.addEventListener("click", (ev) => { ev.preventDefault(); E.command(level(cmd), ev); });
    }
    for (const b of box.querySelectorAll("button[data-line]")) {
      b.title = b.getAttribute("data-line");
      b.addEventListener("click", act(b.title));
    }
    return box;
  }

  const LEVELS = ["easy", "normal", "hard"];   // the computer's levels every game has
  const CHALLENGES = GAMES.filter((g) => g.challenge).map((g) => [g.challenge, g.title]);   // what a challenge to a name types, by game
  let computerLevel = "easy";
  let challengeName = "", challengeGame = CHALLENGES.length ? CHALLENGES[0][0] : "";
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
    shown = null; kind = null; pick = null; clockEnd = 0; asking = null; lastTurn = "";
    for (const own of Object.values(panes)) if (own.reset) own.reset();
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

  // Resigning (and ending a solitaire deal) asks first: the first press turns the button
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

  // -- a game's own pane: the registry, and loading it when needed --------------------------
  // A game's pane script calls register(key, {draw, ...}) when it runs:
  //   draw(p, v, names)       the board and its controls (an element), from the frame p
  //   turn(p)                 words put before the turn line ("Turn 3. "), optional
  //   clock(p, left, name)    the clock's sentence in a phase of its own, or null; optional
  //   keepsPick(p, pick)      whether what is picked stays picked at the next version
  //   moved(), reset()        a new version of the game; a new game or the lobby
  //   output(text, p)         the terminal printed text: true to redraw (HINT's cards)
  // The helpers it draws with are this object's (h, s, act, button, choose, askFirst ...).
  function paneOf(g) { return g ? panes[g.key] || null : null; }
  function ready(g) {
    if (!g || !g.js || panes[g.key] || loads[g.key] === false) return true;
    if (loads[g.key] !== true) load(g);
    return false;
  }
  // Its styles and its script, added to the page once; the pane is drawn when both have
  // arrived (no unstyled board meanwhile). A script that fails, or registers nothing,
  // leaves the game to the generic pane.
  function load(g) {
    loads[g.key] = true;
    let waiting = g.css ? 2 : 1;
    const arrived = () => {
      if (--waiting > 0) return;
      loads[g.key] = Boolean(panes[g.key]);
      if (shown && kind === g) present();
    };
    if (g.css) document.head.appendChild(h("link", { rel: "stylesheet", href: g.css, onload: arrived, onerror: arrived }));
    document.head.appendChild(h("script", { src: g.js, onload: arrived, onerror: arrived }));
  }

  // -- the generic pane: a game with no pane of its own --------------------------------------
  // Its view as text (every fact of it, as the door's pages draw such a game: _view.html),
  // and, on your move, its legal moves as buttons (the frame's ``legal``, when the game
  // lists them), each sending "<PREFIX> <move>".
  function generic(p, v) {
    const prefix = kind ? kind.prefix : "";
    const controls = h("div", { class: "controls" });
    const actions = h("div", { class: "controls actions" });
    if (mine(p) && !p.finished) {
      if (Array.isArray(p.legal) && p.legal.length) {
        controls.appendChild(h("p", { class: "tip" }, "Your moves:"));
        for (const move of p.legal) controls.appendChild(button(move, prefix + " " + move, { "data-key": "move:" + move }));
      } else if (!Array.isArray(p.legal) && myMove(p)) {
        controls.appendChild(h("p", { class: "tip" }, "Type your move in the terminal (" + prefix + " HELP lists the commands)."));
      }
      if (prefix) actions.appendChild(askFirst("Resign", "Really resign?", prefix + " RESIGN"));
    }
    return h("div", { class: "game-generic" }, h("div", { class: "board generic" }, facts(v)),
             controls, actions.firstChild ? actions : null);
  }
  function facts(value) {
    if (Array.isArray(value)) return value.length ? h("ol", {}, value.map((x) => h("li", {}, facts(x)))) : "—";
    if (value && typeof value === "object") {
      return h("dl", {}, Object.entries(value).map(([k, x]) => [h("dt", {}, k), h("dd", {}, facts(x))]));
    }
    return value === null || value === undefined ? "—" : String(value);
  }

  // what a game's pane draws with, and where it registers
  E.pane = {
    register: (key, own) => { panes[key] = own; },
    h: h, s: s, act: act, button: button, choose: choose, nameLink: nameLink, mine: mine,
    myMove: myMove, askFirst: askFirst,
    redraw: (focusKey) => draw(focusKey),
    picked: (what) => (pick && pick.kind === what ? pick.value : null),
    setPick: (what, value) => { pick = what === null ? null : { kind: what, value: value }; },
    level: () => computerLevel,
  };

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
    const g = BY_PACKAGE[pkg] || { key: "", prefix: "", title: p.title || "", pairs: false };
    if (shown && shown.game === p.game) {
      if (p.version < shown.version) return;
      if (p.version !== shown.version) {
        const own = paneOf(g);
        if (!(pick && own && own.keepsPick && own.keepsPick(p, pick))) pick = null;
        if (own && own.moved) own.moved();
      }
    } else {
      pick = null; asking = null;
      for (const own of Object.values(panes)) if (own.reset) own.reset();
    }
    lobbyNote = "";
    // the clock, if the game has one: the seconds left as the server sent them, counted
    // down here between updates
    clockEnd = p.clock && !p.finished ? Date.now() + p.clock.left * 1000 : 0;
    shown = p;
    kind = g;
    // the game's own pane, loaded the first time: drawn once it is there
    if (ready(g)) present();
  });
  // The game shown, drawn (its own pane is there, or it has none).
  function present() {
    const p = shown;
    pane.dataset.game = String(p.game);
    pane.dataset.kind = (p.view && p.view.game) || kind.key;
    pane.dataset.version = String(p.version);
    pane.dataset.finished = p.finished ? "1" : "";
    const keep = document.activeElement && pane.contains(document.activeElement) ? document.activeElement.getAttribute("data-key") : null;
    draw(keep);
    notice(p);
    const turn = turnText(p);
    if (turn !== lastTurn) { lastTurn = turn; say(turn); }
  }
  // what the terminal printed, for the game's pane (HINT's answer); what is picked is
  // dropped when the game moves on, unless the game's pane keeps it (keepsPick)
  document.addEventListener("esterport:output", (ev) => {
    const own = paneOf(kind);
    if (shown && own && own.output && own.output(ev.detail, shown)) draw();
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
