// Esterport's browser client: a small telnet client over a WebSocket.
// Subprotocol telnet.mudstandards.org (https://mudstandards.org/websocket/): the telnet
// stream in binary frames. It answers DO NAWS with the screen's width in columns (and
// again on resize), shows a password field while the server has WILL ECHO, accepts
// GMCP, and draws ANSI colours as HTML spans (text stays text: searchable, copyable,
// read by screen readers through the role="log" region).
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
        current = null;
      } else if (ch === "\r" || ch === "\x07" || ch === "\0") {
        // carriage returns come with line feeds; bells and NULs are not shown
      } else {
        plain += ch;
      }
    }
    put(plain);
    if (stick) screen.scrollTop = screen.scrollHeight;
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

  function naws(force) {
    const c = measureCols();
    if (!force && c === cols) return;
    cols = c;
    const rows = Math.max(10, Math.min(200, Math.floor(screen.clientHeight / 20)));
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
    (on ? secret : line).focus();
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (passwordMode) {
      sendLine(secret.value);
      secret.value = "";
      text("\n");
      return;
    }
    const s = line.value;
    sendLine(s);
    text(s + "\n");     // the server does not echo: show what was typed
    if (s && history[history.length - 1] !== s) {
      history.push(s);
      if (history.length > HISTORY) history.shift();
    }
    back = -1;
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
    }
  });

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + root.dataset.path, [root.dataset.subprotocol]);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => { state.textContent = "Connected."; line.focus(); };
    ws.onmessage = (ev) => {
      if (typeof ev.data === "string") text(ev.data); else receive(ev.data);
    };
    ws.onclose = () => {
      state.textContent = "Disconnected. Reload the page to connect again.";
      setPassword(false);
      line.disabled = true;
    };
  }

  // A game's GMCP view names the game: link its page (a board to share, or to watch in
  // another tab) while it is in play.
  const gamelink = document.getElementById("gamelink");
  document.addEventListener("gmcp", (ev) => {
    const d = ev.detail.data;
    if (!/\.Game$/.test(ev.detail.pkg) || !d || typeof d.game !== "number") return;
    const stick = atBottom();
    gamelink.textContent = "";
    if (d.finished) { gamelink.hidden = true; return; }
    const a = document.createElement("a");
    a.href = "/games/" + d.game;
    a.target = "_blank";
    a.textContent = "Game #" + d.game + ": its board on a page of its own";
    gamelink.appendChild(a);
    gamelink.hidden = false;
    if (stick) screen.scrollTop = screen.scrollHeight;
  });

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (agreed["w" + NAWS]) naws(false); }, 150);
  });
  connect();
})();
