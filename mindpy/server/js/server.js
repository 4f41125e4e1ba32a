'use strict'
// The embedded Minecraft server: flying-squid plus mindpy's own plugins, in a Node process of its own.
// Started by mindpy/server/embedded.py with NODE_PATH pointing at node_modules_setup/node_modules.
// Usage: node server.js CONFIG.json   (see embedded.py for the fields)
// On success it writes CONFIG.ready (JSON: {port, pid, version}); on a fatal error CONFIG.error (the message).

const fs = require('fs')
const path = require('path')

const configPath = process.argv[2]
const config = JSON.parse(fs.readFileSync(configPath, 'utf8'))

function writeAtomically (file, text) {
  fs.writeFileSync(file + '.tmp', text)
  fs.renameSync(file + '.tmp', file)
}

function fail (message) {
  console.error('[mindpy] fatal: ' + message)
  writeAtomically(configPath.replace(/\.json$/, '') + '.error', message)
  process.exit(2)
}

// The server must die with the Python process that owns it: stdin is a pipe from it,
// and the parent pid changes if it dies without closing the pipe.
const parentPid = process.ppid
let serverToSave = null // a server whose world is kept in a folder: its last changes are written before we exit
function exit () {
  const world = serverToSave?.overworld
  if (!world) process.exit(0)
  // a loaded machine takes seconds to write the last columns: embedded.py waits SAVE_WAIT_S (12 s) for a kept world
  setTimeout(() => process.exit(0), 10000).unref()
  world.waitSaving().catch(() => {}).then(() => process.exit(0))
}
process.stdin.on('end', exit)
process.stdin.on('error', exit)
process.on('SIGTERM', exit)
setInterval(() => { if (process.ppid !== parentPid) exit() }, 1000).unref()

// The versions in data/versions.json, each played through by tests/test_versions.py (join, /give, crafting, digging)
// and benchmarks/version_matrix.py (every mechanic tasks use). Left out:
// - before 1.18: the world has no negative heights, and our flat world and the tasks stand at y=-60;
// - 1.20, 1.20.3, 1.20.5 and 1.21: the server runs them, but mineflayer lists only the other release of the same
//   protocol (1.20.1, 1.20.4, 1.20.6, 1.21.1), which clients of those versions join as well; 1.18 (a protocol
//   of its own) the server runs too, but mineflayer does not list it;
// - 1.21.5 and later: flying-squid 1.12 refuses to start ("Latest supported version is '1.21.4'").
// A version must also be one that the installed mineflayer speaks (its bots are the ones that play).
function supportedVersions () {
  const listed = require(path.join(__dirname, 'data', 'versions.json')).embedded
  const mineflayer = require('mineflayer/lib/version')
  return listed.filter(v => mineflayer.testedVersions.includes(v))
}

// mindpy's plugins (files in config.pluginDir, mindpy/server/plugins/), loaded in this order: later ones build on
// earlier ones (chests on block containers, commands on the inventory...). This list decides the order, not the
// numbers in the names; a listed file that is missing, or a file that is not listed, stops the start.
const PLUGINS = [
  '05_chunk_streaming',
  '06_column_packets',
  '07_crowd_view',
  '08_chat_limits',
  '09_unique_names',
  '10_inventory',
  '11_players',
  '12_block_containers',
  '13_returning_players',
  '14_command_order',
  '15_private_messages',
  '16_entity_visibility',
  '17_sounds',
  '18_reach',
  '19_movement_limits',
  '20_crafting',
  '21_smelting',
  '22_chests',
  '30_commands',
  '31_entity_commands',
  '32_world_commands',
  '33_tick_rate',
  '34_day_cycle',
  '35_falling_blocks',
  '36_surface_spawn',
  '39_loot_rolls',
  '40_animals',
  '41_block_loot',
  '42_animal_movement',
  '43_animal_products',
  '44_farming',
  '45_hostile_mobs',
  '46_mob_attacks',
  '47_generated_animals',
  '50_food',
  '51_beds_doors',
  '52_sleeping',
  '53_hunger',
  '54_levers_buttons',
  '99_diagnostics'
]

function pluginFiles (dir) {
  if (!dir || !fs.existsSync(dir)) fail(`the server plugin folder ${dir} does not exist`)
  const missing = PLUGINS.filter(name => !fs.existsSync(path.join(dir, name + '.js')))
  if (missing.length) fail(`server plugin(s) listed in server.js but not in ${dir}: ${missing.join(', ')}`)
  const unlisted = fs.readdirSync(dir).filter(f => f.endsWith('.js') && !PLUGINS.includes(f.slice(0, -3)))
  if (unlisted.length) fail(`server plugin(s) in ${dir} but not listed in server.js (PLUGINS): ${unlisted.join(', ')}`)
  return PLUGINS.map(name => path.join(dir, name + '.js'))
}

// config.world picks the generator: 'flat' (the task worlds) or 'normal' (normal_world.js, for free play). The seed
// is an int32; with a worldFolder flying-squid takes the folder's own from its level.dat instead.
function generation ({ world = 'flat', seed = 1 }) {
  const files = { flat: 'flat_world.js', normal: 'normal_world.js' }
  if (!files[world]) fail(`unknown world '${world}' (expected ${Object.keys(files).join(' or ')})`)
  if (!Number.isInteger(seed) || seed === 0 || seed !== (seed | 0)) fail(`the world seed must be a non-zero 32-bit integer, got ${seed}`)
  return { name: path.join(__dirname, files[world]), options: { seed } }
}

function main () {
  const versions = supportedVersions()
  if (!versions.includes(config.version)) {
    fail(`Minecraft version '${config.version}' is not supported by the embedded server. Supported: ${versions.join(', ')}`)
  }
  const plugins = {}
  for (const file of pluginFiles(config.pluginDir)) plugins[file] = { ...(config.pluginOptions || {}) }

  const mcServer = require('flying-squid')
  const serv = mcServer.createMCServer({
    motd: 'mindpy embedded server',
    host: config.host,
    port: config.port,
    'max-players': config.maxPlayers || 256, // room for a run of 128 agents and their watchers
    'online-mode': false,
    logging: false,
    gameMode: config.gameMode ?? 0,
    difficulty: config.difficulty ?? 1,
    worldFolder: config.worldFolder || undefined,
    generation: generation(config),
    kickTimeout: 30000,
    plugins,
    modpe: false,
    'view-distance': config.viewDistance || 6,
    'player-list-text': { header: { text: 'mindpy' }, footer: { text: '' } },
    'everybody-op': true,
    'max-entities': config.maxEntities || 200,
    version: config.version,
    // With debug set, flying-squid does not exit the process on an uncaught exception;
    // our handler below logs it and keeps serving.
    debug: () => {},
    // minecraft-protocol builds each client's plugin-channel protocol anew and, unless told not to, validates it
    // against its JSON schema: 60-130 ms of this process for every join (a CPU profile of joins: 30% of the
    // server's work once chunk packets were shared), checking the same definitions every time.
    validateChannelProtocol: config.validateChannelProtocol ?? false,
    mindpy: config
  })
  if (config.worldFolder) serverToSave = serv
  process.on('uncaughtException', err => console.error('[mindpy] uncaught exception (server keeps running):', err && err.stack))
  process.on('unhandledRejection', err => console.error('[mindpy] unhandled rejection (server keeps running):', err && (err.stack || err)))
  serv.on('error', err => {
    if (err && err.code === 'EADDRINUSE') fail(`port ${config.port} on ${config.host} is already in use`)
    console.error('[mindpy] server error:', err && err.stack)
  })
  // the seed the world is generated with: a world folder's level.dat has its own
  let seed = config.seed
  serv.once('seed', worldSeed => { seed = worldSeed })
  serv.once('ready', () => {
    const address = serv._server.socketServer.address()
    console.log(`[mindpy] ready on ${address.address}:${address.port} (Minecraft ${config.version}, seed ${seed})`)
    writeAtomically(configPath.replace(/\.json$/, '') + '.ready',
      JSON.stringify({ port: address.port, host: config.host, pid: process.pid, version: config.version, seed }))
  })
}

try {
  main()
} catch (err) {
  fail(err && err.message ? err.message : String(err))
}
