-- The plugin's one mutable table. Every module keeps what it must remember
-- here (and nowhere else), so :lua =require('agentls.state') shows all of
-- it and a client that exits is forgotten in one place.
return {
  config = nil,
  clients = {}, -- root -> client id
  roots = {}, -- client id -> root
  ready = {}, -- client id -> true once initialized
  queue = {}, -- client id -> functions waiting for initialization
  turns = {}, -- client id -> running turn id ('' while an ask is in flight)
  last_turn = {}, -- client id -> the last turn id the plugin started
  ended = {}, -- turn id -> true once turn_end arrived
  asking = 0, -- questions waiting in a request handler (showMessageRequest, question, review)
  last_client = nil,
  warned = {},
  option_errors = {}, -- what setup() reported about its options (see options.lua)
  config_problem = nil, -- why the config file did not load, as a server said
  step = {}, -- client id -> what the running turn does now ("view main.go")
  plan = {}, -- client id -> the plan's progress ("2/5: writing the fix")
  usage = {}, -- client id -> { turn = , session = } usage of the running or last turn (see usage.lua)
  changed = {}, -- client id -> the last turn that changed files (for revert)
  sessions = {}, -- client id -> session id
  log = { lines = {}, titles = {} }, -- the transcript behind :AgentLog
  asks = {}, -- ask id -> the open agentls/ask (see ask.lua)
  questions = {}, -- question id -> the open agentls/askQuestion (see question.lua)
  review = nil, -- the open agentls/review (see review.lua)
  chats = {}, -- chat key (session id, or 'client:N' before the first) -> chat (see chat.lua)
  located = {}, -- recent tool results that name places, newest last (see quickfix.lua)
}
