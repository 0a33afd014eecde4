// Pyramid's pane in /play (board.js loads it when a frame of the game first arrives): the
// 28 cards, the Pack and the Waste Pile; two cards that make 13 are clicked in turn, a King
// alone. HINT's cards (read from the terminal's "Hint: PYR ..." line) are highlighted
// until the game moves on. A deal nobody but its player may see yet is said so.
"use strict";
(function () {
  const P = window.esterport && window.esterport.pane;
  if (!P) return;
  const { h, act, button, myMove, askFirst } = P;
  let hint = null;        // the spots HINT named
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
    const picked = P.picked("card");
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
        onclick = (ev) => { ev.preventDefault(); P.setPick(picked && picked.spot === spot ? null : "card", { spot: spot, text: entry.text }); P.redraw(ev.detail === 0 ? "card:" + spot : null); };
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

  P.register("pyr", {
    draw: (p, v, names) => v.game === "pyramid-hidden" ? pyramidHidden(p, v) : pyramid(p, v, names),
    moved: () => { hint = null; },
    reset: () => { hint = null; },
    output: (text, p) => {
      const m = /Hint: PYR ([^()]+?) \(/.exec(text);
      if (!m || !p.view || p.view.game !== "pyramid") return false;
      hint = m[1].trim().split(/\s+/);
      return true;
    },
  });
})();
