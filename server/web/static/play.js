// Esterport's browser client: a small telnet client over a WebSocket.
// Subprotocol telnet.mudstandards.org (https://mudstandards.org/websocket/): the telnet
// stream in binary frames. It answers DO NAWS with the screen's width in columns (and
// again on resize), shows a password field while the server has WILL ECHO, accepts
// GMCP, and draws ANSI colours as HTML spans (text stays text: searchable, copyable,
// read by screen readers through the role="log" region). It reconnects by itself after a
// drop or a server restart and logs in again with the resume token the server gave at
// login (GMCP Esterport.Resume: single-use, rotated at each login, good for a few minutes
// after a drop, ended by QUIT; kept in this tab's sessionStorage). The password is never
// kept: when the token is refused, the page types the name and asks for the password.
"use strict";
(function () {
  const IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, GA = 249, SE = 240;
  const ECHO = 1, SGA = 3, TTYPE = 24, NAWS = 31, BINARY = 0, GMCP = 201;
  const MAX_LINES = 5000;   // scrollback kept
  const HISTORY = 100;      // commands remembered

  const root = document.getElementById("client");
  const screen = document.getElementById("screen");
  const form = document.getElementById("inputbar");
  const line = document.getElementById("line");
  const secret = document.getElementById("secret");
  const state = document.getElementById("state");
  const encoder = new TextEncoder();
  const decoder = new TextDecoder("utf-8");

  let ws = null;
  let current = null;          // the line being written (a div)
  let style = {};              // current SGR: {b, u, i, f, k}
  let escape = "";             // an escape sequence split across frames
  let telnet = { mode: 0, cmd: 0, sb: [] };  // 0 text, 1 IAC, 2 cmd+opt, 3 SB, 4 SB IAC
  let passwordMode = false;
  let cols = 0;
  const history = [];
  let back = -1;
  let recent = "";             // the last output, as plain text (what a prompt is)
  const login = { name: null, asked: null, auto: false, done: false };
  const RESUME_KEY = "esterport.resume";
  function resumeToken() { try { return sessionStorage.getItem(RESUME_KEY); } catch (e) { return null; } }
  function keepToken(t) {
    try { if (t) sessionStorage.setItem(RESUME_KEY, t); else sessionStorage.removeItem(RESUME_KEY); } catch (e) { /* storage off */ }
  }
  let retry = 0, retryTimer = null, leaving = false;
  // commands typed while the page is not connected and logged in (null: none waiting;
  // a list once the connection is lost after a login)
  let waiting = null;
  const WAITING_MOST = 20;
  const SERVICE_RESTART = 1012;   // the close code the parlor sends when it restarts
  window.esterport = { gmcp: [] };   // GMCP messages received (the game views), for scripts

  function newLine() {
    current = document.createElement("div");
    current.className = "line";
    screen.appendChild(current);
    while (screen.childElementCount > MAX_LINES) screen.removeChild(screen.firstChild);
  }

  function classes() {
    const c = [];
    if (style.b) c.push("b");
    if (style.u) c.push("u");
    if (style.i) c.push("i");
    if (style.f !== undefined) c.push("f" + (style.b && style.f < 8 ? style.f + 8 : style.f));
    if (style.k !== undefined) c.push("k" + style.k);
    return c.join(" ");
  }

  function put(text) {
    if (!text) return;
    if (!current) newLine();
    const cls = classes();
    if (cls) {
      const span = document.createElement("span");
      span.className = cls;
      span.textContent = text;
      current.appendChild(span);
    } else {
      current.appendChild(document.createTextNode(text));
    }
  }

  function sgr(params) {
    const codes = params === "" ? [0] : params.split(";").map((p) => parseInt(p || "0", 10));
    for (let i = 0; i < codes.length; i++) {
      const n = codes[i];
      if (n === 0) style = {};
      else if (n === 1) style.b = true;
      else if (n === 3) style.i = true;
      else if (n === 4) style.u = true;
      else if (n === 22) style.b = false;
      else if (n === 23) style.i = false;
      else if (n === 24) style.u = false;
      else if (n >= 30 && n <= 37) style.f = n - 30;
      else if (n === 39) delete style.f;
      else if (n >= 40 && n <= 47) style.k = n - 40;
      else if (n === 49) delete style.k;
      else if (n >= 90 && n <= 97) style.f = n - 90 + 8;
      else if ((n === 38 || n === 48) && codes[i + 1] === 5) i += 2;   // 256 colours: ignored
      else if ((n === 38 || n === 48) && codes[i + 1] === 2) i += 4;   // true colour: ignored
    }
  }

  // Text (after telnet): split lines, apply SGR, drop every other control sequence.
  function text(s) {
    s = escape + s;
    escape = "";
    const stick = atBottom();
    let plain = "";
    for (let i = 0; i < s.length; i++) {
      const ch = s[i];
      if (ch === "\x1b") {
        const m = /^\x1b\[([0-9;?]*)([@-~])/.exec(s.slice(i, i + 40));
        if (!m) {
          if (s.length - i < 40) { escape = s.slice(i); break; }   // wait for the rest
          continue;
        }
        put(plain); plain = "";
        if (m[2] === "m") sgr(m[1]);
        i += m[0].length - 1;
      } else if (ch === "\n") {
        put(plain); plain = "";
        if (!current) newLine();
        banner(current);
        current = null;
      } else if (ch === "\r" || ch === "\x07" || ch === "\0") {
        // carriage returns come with line feeds; bells and NULs are not shown
      } else {
        plain += ch;
      }
    }
    put(plain);
    if (stick) screen.scrollTop = screen.scrollHeight;
    heard(s);
  }

  // Plain output (no escapes), for the prompts the page answers and the pane's notices.
  function heard(s) {
    const plain = s.replace(/\x1b\[[0-9;?]*[@-~]/g, "").replace(/\r/g, "");
    recent = (recent + plain).slice(-4000);
    document.dispatchEvent(new CustomEvent("esterport:output", { detail: recent.slice(-600) }));
    const tail = recent.slice(-40);
    if (/(^|\n)Choose a name: $/.test(tail)) login.asked = "newname";
    else if (/(^|\n)Name: $/.test(tail)) {
      login.asked = "name";
      const token = login.auto || !login.done ? resumeToken() : null;
      if (token && !driving) {
        keepToken(null);      // used once: the login it opens sends the next one
        sendLine("#resume " + token);
        text("(reconnecting" + (login.name ? " as " + login.name : "") + ")\n");
      } else if (login.auto && login.name && /cannot be resumed/.test(recent.slice(-200))) {
        login.auto = false;   // the token was refused: the name, then the player's password
        sendLine(login.name);
        text(login.name + "\n");
      }
    } else if (/(^|\n)Password: $/.test(tail)) {
      login.asked = "password";
    } else if (/(^|\n)Choose a password: $/.test(tail)) login.asked = "newpassword";
    else if (/(^|\n)Type it again: $/.test(tail)) login.asked = "again";
    if (/Wrong password\.\s*$/.test(tail)) login.auto = false;
    if (driving) drive();
    secret.autocomplete = login.asked === "newpassword" || login.asked === "again" ? "new-password" : "current-password";
    toasts(plain);
    if (/has been taken over by a new connection/.test(plain)) leaving = true;   // not back and forth
  }

  // The pane's login and new-account forms (board.js): the page answers the prompts as a
  // player would type at them. NEW and the name show in the scrollback; a password is
  // never shown, and is kept only until its prompt. A prompt asked again (a name taken,
  // a wrong password, passwords that differ) stops it, back at the Name: prompt, and what
  // the server said goes to the pane (esterport:account).
  let driving = null;    // {fresh, name, password, again, answered: {prompt: true}}
  const PROMPTS = { "Name": "name", "Choose a name": "newname", "Choose a password": "newpassword",
                    "Type it again": "again", "Password": "password" };
  function account(fresh, name, password, again) {
    if (login.done) return;
    driving = { fresh: fresh, name: name, password: password, again: again === undefined ? password : again, answered: {} };
    drive();
  }
  function drive() {
    const m = /(?:^|\n)(Name|Choose a name|Choose a password|Type it again|Password): $/.exec(recent.slice(-40));
    if (!m || !driving || !ws || ws.readyState !== WebSocket.OPEN) return;
    const asked = PROMPTS[m[1]], d = driving;
    if (d.answered[asked]) {
      driving = null;
      const before = recent.slice(0, recent.length - m[0].length).trim().split("\n");
      if (asked !== "name") { sendLine(""); text("\n"); }   // "just press enter to go back"
      document.dispatchEvent(new CustomEvent("esterport:account", { detail: { said: before[before.length - 1] || "" } }));
      return;
    }
    d.answered[asked] = true;
    if (asked === "name" || asked === "newname") {
      const s = asked === "name" && d.fresh ? "NEW" : d.name;
      if (s !== "NEW") login.name = s;
      sendLine(s);
      text(s + "\n");
    } else sendLine(asked === "again" ? d.again : d.password);
  }

  // Challenges and tells: a toast (with Accept and Decline for a challenge).
  let pending = "";
  function toasts(plain) {
    pending = (pending + plain).slice(-3000);
    const rx = /(\S+) challenges you to ([\s\S]+?)\.\s+Type\s+(\S+)\s+ACCEPT\s+(\S+)\s+or\s+\S+\s+DECLINE\s+\S+\.|(\S+) tells you: ([\s\S]*?)\n> /g;
    let m, cut = 0;
    while ((m = rx.exec(pending)) !== null) {
      cut = m.index + m[0].length;
      if (m[1]) toast(m[1] + " challenges you to " + m[2].replace(/\s+/g, " ") + ".",
                      [["Accept", m[3] + " ACCEPT " + m[4]], ["Decline", m[3] + " DECLINE " + m[4]]]);
      else toast(m[5] + " tells you: " + m[6].replace(/\s+/g, " "), [["Reply", "TELL " + m[5] + " "]]);
    }
    if (cut) pending = pending.slice(cut);
  }
  const toastBox = document.getElementById("toasts");
  function toast(message, actions) {
    if (!toastBox) return;
    const box = document.createElement("div");
    box.className = "toast";
    box.setAttribute("role", "alert");
    const p = document.createElement("p");
    p.textContent = message;
    box.appendChild(p);
    const close = () => { box.remove(); };
    for (const [label, line] of actions) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", (ev) => {
        close();
        if (line.endsWith(" ")) { line_.value = line; line_.focus(); return; }
        command(line, ev);
      });
      box.appendChild(b);
    }
    const x = document.createElement("button");
    x.type = "button";
    x.textContent = "Dismiss";
    x.addEventListener("click", (ev) => { close(); refocus(ev); });
    box.appendChild(x);
    toastBox.appendChild(box);
    while (toastBox.childElementCount > 3) toastBox.removeChild(toastBox.firstChild);
    placeToasts();
    setTimeout(close, 30000);
  }
  // Toasts stand above the command line and Send whenever those are on the screen,
  // never over them (a phone's screen is mostly both).
  function placeToasts() {
    if (!toastBox || !toastBox.childElementCount) return;
    const bar = document.getElementById("inputbar");
    const top = bar ? Math.min(bar.getBoundingClientRect().top, window.innerHeight)
                    : window.innerHeight;
    toastBox.style.bottom = Math.max(16, window.innerHeight - top + 8) + "px";
  }
  window.addEventListener("scroll", placeToasts, {passive: true});
  window.addEventListener("resize", placeToasts);
  const line_ = line;

  // A command from the board pane or a toast: sent and shown as if typed, so pointing
  // teaches the typed commands. A pointer's click gives the focus back to the command line.
  function command(s, ev) {
    if (!ws || ws.readyState !== WebSocket.OPEN) { state.textContent = "Not connected: " + s + " was not sent."; return; }
    sendLine(s);
    text(s + "\n");
    remember(s);
    refocus(ev);
  }
  function refocus(ev) {
    // a mouse's click (detail > 0) returns focus to the command line; a keyboard's keeps
    // it where it was; a finger's leaves the on-screen keyboard closed. The page does not
    // scroll to the line: in a narrow window the board is above it, and stays in view.
    if (ev && ev.detail > 0 && !(ev.pointerType === "touch" || lastPointer === "touch")) line.focus({ preventScroll: true });
  }
  let lastPointer = "mouse";
  document.addEventListener("pointerdown", (ev) => { lastPointer = ev.pointerType || "mouse"; }, true);
  window.esterport.command = command;
  window.esterport.account = account;
  window.esterport.refocus = refocus;
  function remember(s) {
    if (s && history[history.length - 1] !== s) {
      history.push(s);
      if (history.length > HISTORY) history.shift();
    }
    back = -1;
  }

  // The welcome's ASCII banner (lines of slashes and bars before the welcome sentence)
  // is hidden from screen readers: read out, it is a string of punctuation.
  let welcomed = false;
  function banner(div) {
    if (welcomed) return;
    const t = div.textContent;
    if (/Welcome to/.test(t)) { welcomed = true; return; }
    const ink = t.replace(/\s/g, "");
    const letters = (ink.match(/[A-Za-z0-9]/g) || []).length;
    if (ink && letters * 2 < ink.length) div.setAttribute("aria-hidden", "true");
  }

  function atBottom() {
    return screen.scrollHeight - screen.scrollTop - screen.clientHeight < 40;
  }

  function send(bytes) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(new Uint8Array(bytes));
  }

  function sendLine(s) {
    const out = [];
    for (const b of encoder.encode(s + "\r\n")) {
      out.push(b);
      if (b === IAC) out.push(IAC);
    }
    send(out);
    recent += "\n";   // the prompt shown is answered (a password's answer is not shown)
  }

  function measureCols() {
    const probe = document.createElement("span");
    probe.textContent = "0".repeat(10);
    probe.style.visibility = "hidden";
    probe.style.position = "absolute";
    screen.appendChild(probe);
    const w = probe.getBoundingClientRect().width / 10;
    screen.removeChild(probe);
    const style = getComputedStyle(screen);
    const inner = screen.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return Math.max(20, Math.min(250, Math.floor(inner / (w || 9))));
  }

  function measureRows() {
    return Math.max(10, Math.min(200, Math.floor(screen.clientHeight / 20)));
  }

  function naws(force) {
    const c = measureCols();
    if (!force && c === cols) return;
    cols = c;
    const rows = measureRows();
    const body = [c >> 8, c & 255, rows >> 8, rows & 255];
    const out = [IAC, SB, NAWS];
    for (const b of body) { out.push(b); if (b === IAC) out.push(IAC); }
    out.push(IAC, SE);
    send(out);
  }

  const agreed = {};   // options we said WILL/DO to
  function negotiate(cmd, opt) {
    if (cmd === DO) {
      if (opt === NAWS) { if (!agreed["w" + opt]) { agreed["w" + opt] = 1; send([IAC, WILL, NAWS]); } naws(true); }
      else if (opt === BINARY || opt === TTYPE) { if (!agreed["w" + opt]) { agreed["w" + opt] = 1; send([IAC, WILL, opt]); } }
      else send([IAC, WONT, opt]);
    } else if (cmd === DONT) {
      agreed["w" + opt] = 0;
    } else if (cmd === WILL) {
      if (opt === ECHO) { setPassword(true); if (!agreed["d1"]) { agreed["d1"] = 1; send([IAC, DO, ECHO]); } }
      else if (opt === GMCP) {
        if (!agreed["d201"]) {
          agreed["d201"] = 1;
          send([IAC, DO, GMCP]);
          gmcpSend("Core.Hello", { client: "Esterport web", version: "1" });
          gmcpSend("Core.Supports.Set", ["Esterport.Spoken 1", "Esterport.Resume 1"]);
        }
      } else if (opt === SGA) { if (!agreed["d3"]) { agreed["d3"] = 1; send([IAC, DO, SGA]); } }
      else send([IAC, DONT, opt]);
    } else if (cmd === WONT) {
      if (opt === ECHO) { setPassword(false); if (agreed["d1"]) { agreed["d1"] = 0; send([IAC, DONT, ECHO]); } }
    }
  }

  function gmcpSend(pkg, data) {
    const out = [IAC, SB, GMCP];
    for (const b of encoder.encode(pkg + " " + JSON.stringify(data))) { out.push(b); if (b === IAC) out.push(IAC); }
    out.push(IAC, SE);
    send(out);
  }

  function subnegotiation(bytes) {
    const opt = bytes[0];
    if (opt === TTYPE && bytes[1] === 1) {   // SEND
      send([IAC, SB, TTYPE, 0, ...encoder.encode("ESTERPORT-WEB"), IAC, SE]);
    } else if (opt === GMCP) {
      const s = decoder.decode(new Uint8Array(bytes.slice(1)));
      const space = s.indexOf(" ");
      const pkg = space < 0 ? s : s.slice(0, space);
      let data = null;
      try { data = space < 0 ? null : JSON.parse(s.slice(space + 1)); } catch (e) { data = null; }
      if (pkg === "Esterport.Resume" && data && typeof data.token === "string") keepToken(data.token);
      if (pkg === "Char.Name" && data && data.name) {
        login.name = data.name; login.done = true; login.auto = false; retry = 0; driving = null;
        document.dispatchEvent(new CustomEvent("esterport:login", { detail: data.name }));
        if (waiting !== null) {   // back: what was typed meanwhile runs now, in order
          const typed = waiting;
          waiting = null;
          for (const w of typed) sendLine(w);
        }
      }
      window.esterport.gmcp.push([pkg, data]);
      if (window.esterport.gmcp.length > 50) window.esterport.gmcp.shift();
      document.dispatchEvent(new CustomEvent("gmcp", { detail: { pkg: pkg, data: data } }));
    }
  }

  const stream = new TextDecoder("utf-8");
  function receive(buf) {
    const data = new Uint8Array(buf);
    let chunk = [];
    const flush = () => { if (chunk.length) { text(stream.decode(new Uint8Array(chunk), { stream: true })); chunk = []; } };
    for (const b of data) {
      switch (telnet.mode) {
        case 0:
          if (b === IAC) telnet.mode = 1; else chunk.push(b);
          break;
        case 1:
          if (b === IAC) { chunk.push(IAC); telnet.mode = 0; }
          else if (b === SB) { telnet.mode = 3; telnet.sb = []; }
          else if (b >= WILL && b <= DONT) { telnet.mode = 2; telnet.cmd = b; }
          else { telnet.mode = 0; if (b === GA) { /* a prompt ends here */ } }
          break;
        case 2:
          flush(); negotiate(telnet.cmd, b); telnet.mode = 0;
          break;
        case 3:
          if (b === IAC) telnet.mode = 4;
          else if (telnet.sb.length < 65536) telnet.sb.push(b);
          break;
        case 4:
          if (b === SE) { flush(); subnegotiation(telnet.sb); telnet.mode = 0; }
          else { telnet.sb.push(b); telnet.mode = 3; }
          break;
      }
    }
    flush();
  }

  function setPassword(on) {
    passwordMode = on;
    secret.hidden = !on;
    line.hidden = on;
    // the terminal's field takes the focus, unless it is in the pane (its login forms)
    if (!document.getElementById("pane") || !document.getElementById("pane").contains(document.activeElement)) (on ? secret : line).focus();
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (passwordMode) {
      sendLine(secret.value);
      secret.value = "";
      return;        // the server ends the prompt's line itself: no blank line
    }
    const s = line.value;
    if (login.asked === "name" || login.asked === "newname") {
      if (s.trim() && !/^(new|quit|exit|logout)$/i.test(s.trim())) login.name = s.trim().split(/\s+/)[0];
    }
    if (/^\s*(quit|logout)(\s+yes)?\s*$/i.test(s)) { leaving = true; keepToken(null); }
    if (waiting !== null && !(ws && ws.readyState === WebSocket.OPEN && login.done)) {
      // between connections (the parlor restarting, a drop) a command waits, and runs
      // once, in order, when the page is logged in again (not before: it would be read
      // as a name at the login prompt)
      if (waiting.length < WAITING_MOST) waiting.push(s);
      else text("(too many commands waiting; that one was not kept)\n");
    } else sendLine(s);
    text(s + "\n");     // the server does not echo: show what was typed
    remember(s);
    line.value = "";
  });

  line.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowUp" && history.length) {
      back = back < 0 ? history.length - 1 : Math.max(0, back - 1);
      line.value = history[back];
      ev.preventDefault();
    } else if (ev.key === "ArrowDown" && back >= 0) {
      back += 1;
      if (back >= history.length) { back = -1; line.value = ""; } else line.value = history[back];
      ev.preventDefault();
    } else if (ev.key === "PageUp" || ev.key === "PageDown") {
      screen.scrollBy(0, (ev.key === "PageUp" ? -1 : 1) * screen.clientHeight * 0.9);
      ev.preventDefault();
    }
  });
  secret.addEventListener("keydown", (ev) => {
    if (ev.key === "PageUp" || ev.key === "PageDown") {
      screen.scrollBy(0, (ev.key === "PageUp" ? -1 : 1) * screen.clientHeight * 0.9);
      ev.preventDefault();
    }
  });

  function connect() {
    clearTimeout(retryTimer);
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    telnet = { mode: 0, cmd: 0, sb: [] };
    welcomed = false;
    for (const k of Object.keys(agreed)) delete agreed[k];
    cols = 0;
    // the window's size rides on the address too: the welcome is drawn to it even when
    // the answer to DO NAWS comes late
    const size = "?cols=" + measureCols() + "&rows=" + measureRows();
    ws = new WebSocket(scheme + location.host + root.dataset.path + size, [root.dataset.subprotocol]);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      state.textContent = "Connected.";
      root.dataset.connected = "1";
      line.disabled = false;
      reconnectButton.hidden = true;
      if (!passwordMode) line.focus();
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === "string") text(ev.data); else receive(ev.data);
    };
    ws.onclose = (ev) => {
      root.dataset.connected = "";
      setPassword(false);
      if (current) { current = null; }
      const why = ev.code === 1008 ? "The server closed the connection: " + (ev.reason || "a policy was broken") + ". "
                : ev.code === 1009 ? "The server closed the connection: a message was too long. " : "";
      if (leaving) {
        state.textContent = why + "Disconnected.";
        line.disabled = true;
        reconnectButton.hidden = false;
        leaving = false;
        return;
      }
      const restarting = ev.code === SERVICE_RESTART;
      // a restart is over in a second or two: try again soon, and steadily
      const wait = restarting ? (retry ? 1 : 0.3) : Math.min(15, [1, 2, 3, 5, 8, 10][retry] || 15);
      retry = restarting ? Math.min(retry + 1, 1) : retry + 1;
      login.auto = Boolean(login.done && login.name);
      if (login.done && waiting === null) waiting = [];
      login.done = false;
      state.textContent = restarting ?
        "The parlor is restarting; what you type runs in a moment." :
        why + "Connection lost. Reconnecting in " + wait + " s" +
        (login.auto && resumeToken() ? " (you will be logged in again as " + login.name + ")." : ".");
      reconnectButton.hidden = false;
      retryTimer = setTimeout(connect, wait * 1000);
    };
  }
  const reconnectButton = document.getElementById("reconnect");
  reconnectButton.addEventListener("click", (ev) => { ev.preventDefault(); retry = 0; connect(); });

  // A game's GMCP view names the game: link its page (a board to share, or to watch in
  // another tab) while it is in play.
  const gamelink = document.getElementById("gamelink");
  document.addEventListener("gmcp", (ev) => {
    const d = ev.detail.data;
    if (!/\.Game$/.test(ev.detail.pkg) || !d || typeof d.game !== "number") return;
    const stick = atBottom();
    gamelink.textContent = "";
    if (d.finished || d.left) { gamelink.hidden = true; return; }
    const a = document.createElement("a");
    a.href = "/games/" + d.game;
    a.target = "_blank";
    a.textContent = "Game #" + d.game + ": its board on a page of its own";
    gamelink.appendChild(a);
    gamelink.hidden = false;
    if (stick) screen.scrollTop = screen.scrollHeight;
  });

  // "Your move" in correspondence games (GMCP Char.Status letters): a count, and a
  // button that lists them (MYGAMES).
  const letters = document.getElementById("letters");
  letters.addEventListener("click", (ev) => command("mygames", ev));
  document.addEventListener("gmcp", (ev) => {
    const d = ev.detail.data;
    if (ev.detail.pkg !== "Char.Status" || !d || typeof d.letters !== "number") return;
    const n = d.letters;
    letters.textContent = "Your move in " + n + (n === 1 ? " game" : " games") +
      " by correspondence (MYGAMES)";
    letters.hidden = n <= 0;
  });

  // Follow new output across resizes (the window's, the pane's, a phone turning): if the
  // scrollback was at its end before, it is after; the width in columns goes out again.
  let stuck = true;
  screen.addEventListener("scroll", () => { stuck = atBottom(); });
  let resizeTimer = null;
  function resized() {
    if (stuck) screen.scrollTop = screen.scrollHeight;
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (stuck) screen.scrollTop = screen.scrollHeight;
      if (agreed["w" + NAWS]) naws(false);
    }, 150);
  }
  window.addEventListener("resize", resized);
  if (window.ResizeObserver) new ResizeObserver(resized).observe(screen);
  connect();
})();
