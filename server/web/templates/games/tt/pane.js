// Triptycha's pane in /play (board.js loads it when a frame of the game first arrives):
// the nine niches drawn in SVG, the deck to draw from, the hand to lay from (a tile is
// picked, turned if need be, then laid in a niche that points its way), and the trading
// after a win. Tiles are named by their corners, each with its place, for a screen reader.
"use strict";
(function () {
  const P = window.esterport && window.esterport.pane;
  if (!P) return;
  const E = window.esterport;
  const { h, s, act, button, choose, nameLink, mine, myMove, askFirst } = P;
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
    const chosen = P.picked("tile");
    const picked = chosen !== null ? hand.find((t) => t.n === chosen && t.niche === null) : null;
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

  P.register("tt", {
    draw: triptycha,
    // the clock while the winner takes tiles
    clock: (p, left, name) => (p.view || {}).phase === "trading"
      ? "Trading ends in " + left + (p.clock.seat === p.seat ? " (then Done for you)." : " (then Done for " + name + ").")
      : null,
    // A tile picked stays picked while it is still in your hand to lay and it is still
    // your move: a Flip or a Rotate is a move of its own, and turning the tile is why it
    // was picked.
    keepsPick: (p, pick) => {
      if (pick.kind !== "tile" || !myMove(p)) return false;
      const v = p.view || {}, hand = v.hands && v.hands[p.seat];
      return v.phase === "play" && Boolean(hand && hand.find((x) => x.n === pick.value && x.niche === null));
    },
  });
})();
