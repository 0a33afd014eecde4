// Triad Dice's pane in /play (board.js loads it when a frame of the game first arrives):
// the 6x6 board as a grid of buttons, drawn from the GMCP view's dice and legal moves. A
// die that can move is clicked (picked), then the square it goes to; a die to remove is
// clicked once. The board is a grid with one tab stop, which the arrow keys move.
"use strict";
(function () {
  const P = window.esterport && window.esterport.pane;
  if (!P) return;
  const { h, act, button, choose, nameLink, mine, askFirst } = P;
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
    const from = P.picked("die");
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

  P.register("dice", {
    draw: dice,
    turn: (p) => "Turn " + ((p.view || {}).turns + 1) + ". ",
    reset: () => { gridCell = null; },
  });
})();
