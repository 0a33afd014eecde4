-- Esterport's board window for Mudlet.
--
-- A window docked at the right of Mudlet's main window that draws the player's current
-- game from the parlor's GMCP: the game's own package (one per game, "Triad.Game",
-- "Dice.Game" ...) on every change, and Char.Status for whose move it is. It only adds a
-- window: it has no triggers, gags nothing, and never touches the main window's text, so
-- a player reading with a screen reader loses nothing.
--
-- The window asks the parlor (Core.Supports.Add) for the board as plain text
-- ("Esterport.Board") and in words ("Esterport.Spoken"); it draws the first, or the
-- second when the first is missing. Lua 5.1, as Mudlet runs it.

Esterport = Esterport or {}
local E = Esterport

-- The game packages this parlor sends; server/mudlet.py writes them in when it builds
-- the package.
E.packages = {--[[packages]]}

E.WINDOW = "EsterportBoard"
E.SUPPORTS = 'Core.Supports.Add ["Esterport.Board 1", "Esterport.Spoken 1"]'

-- Mudlet reads JSON's null as a value that is neither nil nor a table (yajl.null).
local function tbl(value)
  if type(value) == "table" then
    return value
  end
  return nil
end

local function number(value)
  if type(value) == "number" then
    return value
  end
  return nil
end

-- gmcp.Dice.Game for "Dice.Game".
local function lookup(package)
  local node = gmcp
  for part in string.gmatch(package, "[^%.]+") do
    node = tbl(node) and node[part]
  end
  return tbl(node)
end

function E.window()
  if not E.box then
    E.box = Geyser.UserWindow:new({
      name = E.WINDOW, titleText = "Esterport", docked = true, dockPosition = "right",
      wrapAt = "auto", fontSize = 10,
    })
  end
  return E.box
end

-- Whose move it is: from Char.Status for the player's own game, else from the frame.
local function move_line(frame)
  local status = E.status
  if status and status.id == frame.game then
    if status.your_move then
      return "Your move."
    end
    local movers = tbl(status.to_move) or {}
    if #movers > 0 then
      return table.concat(movers, ", ") .. " to move."
    end
    return nil
  end
  local players, movers = tbl(frame.players) or {}, {}
  for _, seat in ipairs(tbl(frame.to_move) or {}) do
    movers[#movers + 1] = players[seat + 1] or ("seat " .. tostring(seat + 1))
  end
  if #movers > 0 then
    return table.concat(movers, ", ") .. " to move."
  end
  return nil
end

function E.draw()
  local box = E.window()
  box:clear()
  local frame = E.frame
  if not frame then
    box:setTitle("Esterport")
    box:echo("No game in play.\n")
    return
  end
  local title = tostring(frame.title or "Game") .. " #" .. tostring(frame.game)
  box:setTitle(title)
  box:echo(title .. "\n")
  local players = tbl(frame.players)
  if players then
    box:echo(table.concat(players, " vs ") .. "\n")
  end
  local move = move_line(frame)
  if move then
    box:echo(move .. "\n")
  end
  box:echo("\n")
  local lines = tbl(frame.board) or tbl(frame.spoken)
  if lines then
    for _, line in ipairs(lines) do
      box:echo(tostring(line) .. "\n")
    end
  else
    box:echo("(The board is drawn here from the next move on.)\n")
  end
end

-- A game's package arrived: the player's own game is drawn (a game they watch only
-- while they play none); a game that ended is cleared.
function E.on_game(event)
  local frame = lookup(string.sub(event, 6))  -- "gmcp.Dice.Game"
  if not frame then
    return
  end
  local current = E.frame
  local same = current and current.game == frame.game
  local own = number(frame.seat) ~= nil
  if frame.finished == true then
    if same then
      E.frame = nil
      E.draw()
    end
    return
  end
  if own or same or not E.status then
    E.frame = frame
    E.draw()
  end
end

function E.on_status()
  local status = tbl(gmcp.Char) and tbl(gmcp.Char.Status)
  if not status or status.game == nil then
    return  -- a message without "game": the game is unchanged
  end
  E.status = tbl(status.game)
  local frame = E.frame
  if not E.status and frame and number(frame.seat) ~= nil then
    E.frame = nil  -- their game is over
  end
  E.draw()
end

function E.on_protocol(_, protocol)
  if protocol == "GMCP" then
    sendGMCP(E.SUPPORTS)
  end
end

function E.on_disconnect()
  E.frame, E.status = nil, nil
  E.draw()
end

-- (Re)load: the handlers of an earlier load are removed first, so an upgrade of the
-- package never answers an event twice.
for _, id in ipairs(E.handlers or {}) do
  killAnonymousEventHandler(id)
end
E.handlers = {
  registerAnonymousEventHandler("gmcp.Char.Status", E.on_status),
  registerAnonymousEventHandler("sysProtocolEnabled", E.on_protocol),
  registerAnonymousEventHandler("sysDisconnectionEvent", E.on_disconnect),
}
for _, package in ipairs(E.packages) do
  table.insert(E.handlers, registerAnonymousEventHandler("gmcp." .. package, E.on_game))
end
-- Installed while connected (the parlor offered the package): ask for the boards now.
sendGMCP(E.SUPPORTS)
E.draw()
