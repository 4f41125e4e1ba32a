'use strict'
// The core skills plugin: a per-bot skill table (bot.skills) that the concern plugins register into, and the
// machinery Python uses to run one skill at a time, interrupt it and set cheat mode.

const c = require('./common')

function inject (bot) {
  const table = {}
  bot.skills = {
    table,
    // name -> async (bot, ...args) => boolean; a skill reports what it did with c.say()
    register (skills) { Object.assign(table, skills) },
    names () { return Object.keys(table) }
  }
}

// Run one skill; the result is JSON: {ok, interrupted, error, messages}.
// The time limit is kept here, not by the bridge: a bridge call that times out leaves JSPyBridge waiting
// for its answer to be collected, which stalls every later call.
async function run (bot, name, argsJson, timeoutMs = 300000) {
  const skill = bot.skills && bot.skills.table[name]
  if (!skill) return JSON.stringify({ ok: false, error: `unknown skill ${name}`, messages: [] })
  const st = c.state(bot)
  st.interrupted = false
  st.log = []
  st.running = name
  let timer
  const limit = new Promise((resolve, reject) => {
    timer = setTimeout(() => {
      interrupt(bot)
      reject(new c.SkillFailure(`${name} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`))
    }, timeoutMs)
  })
  try {
    const ok = await Promise.race([skill(bot, ...JSON.parse(argsJson)), limit])
    return JSON.stringify({ ok: ok !== false, interrupted: false, messages: st.log })
  } catch (err) {
    if (err instanceof c.Interrupted) return JSON.stringify({ ok: false, interrupted: true, messages: st.log })
    const message = err instanceof c.SkillFailure ? err.message : `${err.name || 'Error'}: ${err.message}`
    return JSON.stringify({ ok: false, interrupted: false, error: message, messages: st.log })
  } finally {
    clearTimeout(timer)
    st.running = null
    c.reported(bot)
  }
}

// Stop whatever the bot is doing: the running skill sees the flag within 100 ms.
function interrupt (bot) {
  const st = c.state(bot)
  st.interrupted = true
  try { if (bot.pathfinder) bot.pathfinder.stop() } catch (e) {}
  try { if (bot.pathfinder) bot.pathfinder.setGoal(null) } catch (e) {}
  try { bot.stopDigging() } catch (e) {}
  try { bot.clearControlStates() } catch (e) {}
  try { if (bot.currentWindow) bot.closeWindow(bot.currentWindow) } catch (e) {}
  return true
}

// The name of the skill running now, or '' (lets a caller wait for a skill to have started).
function runningSkill (bot) {
  return c.state(bot).running || ''
}

function setCheat (bot, on) {
  c.state(bot).cheat = !!on
  return true
}

// With cheat mode on, place only what the bot holds (a task's restrict_to_inventory).
function setRestrictToInventory (bot, on) {
  c.state(bot).restrictToInventory = !!on
  return true
}

// Blocks the bot's walking must never break (a CoBlock structure: each block is scarce and lost when broken); the
// pathfinder would otherwise dig through them on its way.
function setProtectedBlocks (bot, namesJson) {
  c.state(bot).protectedBlocks = JSON.parse(namesJson)
  return true
}

module.exports = { inject, run, interrupt, runningSkill, setCheat, setRestrictToInventory, setProtectedBlocks }
