-- A small fake of the part of Mudlet's Lua API the Esterport package uses, to run the
-- package's script as Mudlet would and read what its window shows
-- (tests/e2e/test_e2e_mudlet.py). Lua 5.1, as Mudlet runs it.
--
--   lua5.1 mudlet_fake.lua SCRIPT
--
-- runs SCRIPT (the Lua taken from the package's XML), then reads commands, one a line:
--   GMCP <package> <Lua expression>   a GMCP message: Mudlet's gmcp table is set and the
--                                     events gmcp.<A>, gmcp.<A>.<B> ... raised, in order
--   EVENT <name> [<argument>]         another event (sysProtocolEnabled GMCP ...)
-- and after the script and after each command writes what was sent (SEND <message>, one
-- for each sendGMCP), what was written to the main window (MAIN <text>: the package must
-- write nothing there), the window's title (TITLE <text>) and its text (TEXT <line>, one
-- for each line), then END.
--
-- JSON's null is passed as NULL, which stands for Mudlet's yajl.null: a value that is
-- neither nil nor a table.

NULL = function() end

gmcp = {}
local handlers, next_id = {}, 1
local sent, main = {}, {}

function registerAnonymousEventHandler(event, fn)
  local id = next_id
  next_id = next_id + 1
  handlers[id] = {event = event, fn = fn}
  return id
end

function killAnonymousEventHandler(id)
  local found = handlers[id] ~= nil
  handlers[id] = nil
  return found
end

function raiseEvent(event, ...)
  local ids = {}
  for id in pairs(handlers) do
    ids[#ids + 1] = id
  end
  table.sort(ids)
  for _, id in ipairs(ids) do
    local handler = handlers[id]
    if handler and handler.event == event then
      local fn = handler.fn
      if type(fn) == "string" then
        fn = _G[fn]
      end
      fn(event, ...)
    end
  end
end

function sendGMCP(message)
  sent[#sent + 1] = message
end

-- The main window: the package must leave it alone.
function echo(...)
  main[#main + 1] = table.concat({...}, " ")
end
cecho, decho, hecho, insertText = echo, echo, echo, echo
function deleteLine() main[#main + 1] = "<deleteLine>" end
function tempTrigger() main[#main + 1] = "<tempTrigger>" end
function tempRegexTrigger() main[#main + 1] = "<tempRegexTrigger>" end

-- Geyser, as far as a UserWindow (a MiniConsole in a window of its own) goes.
local windows = {}
Geyser = {UserWindow = {}}
local UserWindow = Geyser.UserWindow
UserWindow.__index = UserWindow

function UserWindow:new(cons)
  assert(type(cons) == "table" and cons.name, "a UserWindow needs a name")
  assert(not windows[cons.name], "a second UserWindow named " .. cons.name)
  local me = setmetatable({name = cons.name, title = cons.titleText or "", text = "",
                           cons = cons}, UserWindow)
  windows[cons.name] = me
  return me
end

function UserWindow:clear() self.text = "" end
function UserWindow:echo(text) self.text = self.text .. text end
function UserWindow:cecho(text) self.text = self.text .. string.gsub(text, "<[%w_,:]*>", "") end
function UserWindow:setTitle(text) self.title = text end
function UserWindow:show() self.hidden = false end
function UserWindow:hide() self.hidden = true end

local function report()
  for _, message in ipairs(sent) do
    io.write("SEND ", message, "\n")
  end
  for _, text in ipairs(main) do
    io.write("MAIN ", (string.gsub(text, "\n", "\\n")), "\n")
  end
  sent, main = {}, {}
  for name, window in pairs(windows) do
    io.write("WINDOW ", name, "\n")
    io.write("TITLE ", window.title, "\n")
    local text = window.text
    if string.sub(text, -1) == "\n" then
      text = string.sub(text, 1, -2)
    end
    for line in string.gmatch(text .. "\n", "([^\n]*)\n") do
      io.write("TEXT ", line, "\n")
    end
  end
  io.write("END\n")
  io.flush()
end

local function deliver(package, data)
  local node, path, parts = gmcp, "gmcp", {}
  for part in string.gmatch(package, "[^%.]+") do
    parts[#parts + 1] = part
  end
  for i, part in ipairs(parts) do
    if i == #parts then
      node[part] = data
    else
      if type(node[part]) ~= "table" then
        node[part] = {}
      end
      node = node[part]
    end
  end
  for _, part in ipairs(parts) do
    path = path .. "." .. part
    raiseEvent(path, path)
  end
end

dofile(arg[1])
report()
for line in io.lines() do
  local package, expression = string.match(line, "^GMCP (%S+) (.*)$")
  if package then
    deliver(package, assert(loadstring("return " .. expression))())
  else
    local event, argument = string.match(line, "^EVENT (%S+) ?(.*)$")
    assert(event, "not a command: " .. line)
    raiseEvent(event, argument ~= "" and argument or nil)
  end
  report()
end
