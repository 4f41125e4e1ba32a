'use strict'
// JavaScript half of mindpy's bridge, loaded once into the JSPyBridge Node process.
// Work that would take many round trips from Python is done here in one call.
// Modules resolve through NODE_PATH = node_modules_setup/node_modules (set by mindpy/bridge/runtime.py).

const mineflayer = require('mineflayer')
const { addSpecialRecipes } = require('../../data/special_recipes')
const { joinPaced, followViewDistance } = require('./joining')
const { chatLimit, chatPlain, whisperPlain } = require('./plain_chat') // chat that never runs as a command

// This Node process must not outlive the Python process that owns it: JSPyBridge talks over stdin,
// which closes when Python exits, and the parent pid changes if Python is killed outright.
const parentPid = process.ppid
process.stdin.on('end', () => process.exit(0))
setInterval(() => { if (process.ppid !== parentPid) process.exit(0) }, 500).unref()

function supportedVersionsJson () {
  return JSON.stringify(mineflayer.testedVersions)
}

// Resolves with the bot once it has joined and spawned; rejects with a message naming what went wrong.
function createBot (options, timeoutMs) {
  const { host, port, username, version } = options
  if (version && !mineflayer.testedVersions.includes(version)) {
    return Promise.reject(new Error(
      `Minecraft version '${version}' is not supported by mineflayer. Supported: ${mineflayer.testedVersions.join(', ')}`))
  }
  return new Promise((resolve, reject) => {
    let settled = false
    const bot = mineflayer.createBot({
      host,
      port,
      username,
      version: version || false,
      auth: options.auth || 'offline',
      hideErrors: true,
      checkTimeoutInterval: options.checkTimeoutInterval || 60000,
      logErrors: false,
      // minecraft-protocol builds a schema validator for plugin channels per client: 60-130 ms of this one Node
      // thread per join, for channels mindpy never registers
      validateChannelProtocol: false
    })
    followViewDistance(bot) // from the first packet: the view can change while the bot is still joining
    const finish = (err) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      bot.removeListener('spawn', onSpawn)
      if (err) {
        try { bot.end() } catch (e) {}
        reject(err)
      } else {
        resolve(bot)
      }
    }
    const where = `${host}:${port}`
    const onSpawn = () => {
      addSpecialRecipes(bot.registry) // recipes the game has and minecraft-data lacks (suspicious stew)
      finish(null)
    }
    const timer = setTimeout(() => finish(new Error(
      `Bot '${username}' could not join the server at ${where} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs)
    bot.once('spawn', onSpawn)
    bot.once('error', err => {
      const reason = err && err.code === 'ECONNREFUSED'
        ? `nothing is listening at ${where} (connection refused)`
        : (err && err.message) || String(err)
      finish(new Error(`Bot '${username}' could not join the server at ${where}: ${reason}`))
    })
    bot.once('kicked', reason => finish(new Error(`Bot '${username}' was kicked by the server at ${where}: ${textOf(reason)}`)))
    bot.once('end', reason => finish(new Error(`Bot '${username}' lost its connection to ${where}: ${reason}`)))
  })
}

// Join several bots, a few at a time (joining.js says why; `atOnce` overrides how many); each has `timeoutMs` from
// the start of its own join. If any fails, the ones that joined leave again and the first error is raised.
async function createBots (optionsList, timeoutMs, atOnce) {
  const results = await joinPaced(optionsList, options => createBot(options, timeoutMs), atOnce || undefined)
  const failed = results.find(r => r.status === 'rejected')
  if (failed) {
    await Promise.all(results.filter(r => r.status === 'fulfilled').map(r => quit(r.value)))
    throw failed.reason
  }
  return results.map(r => r.value)
}

function textOf (reason) {
  if (typeof reason === 'string') {
    try { return textOf(JSON.parse(reason)) } catch (e) { return reason }
  }
  if (reason && typeof reason === 'object') {
    if (reason.value && typeof reason.value === 'object') return textOf(reason.value)
    if (typeof reason.text === 'string' || typeof reason.text?.value === 'string') {
      const extra = (reason.extra?.value?.value || reason.extra || []).map(textOf).join('')
      return (reason.text?.value ?? reason.text) + extra
    }
    if (reason.translate) return reason.translate?.value ?? reason.translate
  }
  return JSON.stringify(reason)
}

// Plain JSON-able values for event arguments, so Python gets data rather than proxies.
function plain (value, depth = 0) {
  if (value === null || value === undefined) return null
  const type = typeof value
  if (type === 'string' || type === 'number' || type === 'boolean') return value
  if (type === 'bigint') return Number(value)
  if (type === 'function') return null
  if (value.constructor && value.constructor.name === 'Vec3') return { x: value.x, y: value.y, z: value.z }
  if (value.constructor && value.constructor.name === 'ChatMessage') return value.toString()
  if (value.constructor && value.constructor.name === 'Entity') {
    return { id: value.id, type: value.type, name: value.name, username: value.username ?? null, position: plain(value.position) }
  }
  if (value.constructor && value.constructor.name === 'Item') {
    return { name: value.name, count: value.count, slot: value.slot }
  }
  if (value.constructor && value.constructor.name === 'Block') {
    return { name: value.name, position: plain(value.position) }
  }
  if (depth >= 2) return String(value)
  if (Array.isArray(value)) return value.slice(0, 64).map(v => plain(v, depth + 1))
  const out = {}
  for (const key of Object.keys(value).slice(0, 32)) out[key] = plain(value[key], depth + 1)
  return out
}

// Forward each named event of an emitter to one Python callback as (name, JSON text of the arguments).
// Returns a function that removes the listeners.
function forwardEvents (emitter, names, callback) {
  const listeners = names.map(name => {
    const listener = (...args) => {
      let payload
      // a kick's reason is a chat component (NBT from 1.20.3): its text, not the component's shape
      const values = name === 'kicked' ? [textOf(args[0]), ...args.slice(1)] : args
      try { payload = JSON.stringify(values.map(a => plain(a))) } catch (e) { payload = '[]' }
      Promise.resolve(callback(name, payload)).catch(() => {})
    }
    emitter.on(name, listener)
    return [name, listener]
  })
  return () => { for (const [name, listener] of listeners) emitter.removeListener(name, listener) }
}

// Functions named *Json return JSON text: one round trip, and Python gets plain data, not proxies.
function inventoryCountsJson (bot) {
  const counts = {}
  for (const item of bot.inventory.items()) counts[item.name] = (counts[item.name] || 0) + item.count
  return JSON.stringify(counts)
}

function plainJson (value) {
  return JSON.stringify(plain(value))
}

// Inject the plugin of one of our JS files into a bot. mineflayer's loadPlugin skips a plugin function the bot
// already has, and Node's require cache makes the function the same object each time.
function loadPlugin (bot, file) {
  const loaded = require(file)
  const inject = typeof loaded === 'function' ? loaded : loaded && loaded.inject
  if (typeof inject !== 'function') throw new Error(`${file} is not a mineflayer plugin: it exports no inject(bot)`)
  bot.loadPlugin(inject)
  return true
}

function quit (bot) {
  return new Promise(resolve => {
    if (!bot._client || bot._client.ended) return resolve(true)
    const timer = setTimeout(() => resolve(false), 2000)
    bot.once('end', () => { clearTimeout(timer); resolve(true) })
    bot.quit()
  })
}

module.exports = {
  createBot, createBots, supportedVersionsJson, forwardEvents, inventoryCountsJson, plainJson, loadPlugin, quit,
  chatLimit, chatPlain, whisperPlain
}
