'use strict'
// Bots join a few at a time. A bot that has just spawned receives the chunk columns around it, and decoding them
// is the heaviest work this Node process does: 64 bots joining at once kept it busy for seconds at a stretch, so
// the bridge calls of bots already playing went unanswered past their time limit and the server's keep-alives
// waited. A joining bot holds one of JOINING_AT_ONCE places until it has spawned and the columns of its view have
// arrived; then the next one starts.

const JOINING_AT_ONCE = 8
const LONGEST_SETTLE_MS = 10000 // a server that never sends part of the view does not hold the queue longer

// How far around its column a bot's view surely reaches: servers send the columns within their view distance, but
// not all the same way (flying-squid sends one column less on one side), so one less than that. The view distance
// is the login packet's, or the last update_view_distance's (the embedded server lowers it for a crowd; mineflayer
// itself only reads the login packet).
function viewRadius (bot) {
  return Math.max(1, Math.min(bot.game.serverViewDistance || 2, 12) - 1)
}

function viewLoaded (bot, radius) {
  const cx = Math.floor(bot.entity.position.x / 16)
  const cz = Math.floor(bot.entity.position.z / 16)
  for (let x = cx - radius; x <= cx + radius; x++) {
    for (let z = cz - radius; z <= cz + radius; z++) {
      if (!bot.world.getColumn(x, z)) return false
    }
  }
  return true
}

// Keeps bot.game.serverViewDistance up to date; host.js calls it as soon as the bot is created, since the server
// can lower the view between a bot's login packet and its spawn.
function followViewDistance (bot) {
  bot._client?.on('update_view_distance', ({ viewDistance }) => {
    bot.game.serverViewDistance = viewDistance
    bot.emit('mindpyViewDistance', viewDistance)
  })
}

// Resolves once the columns of the bot's view have loaded (or it left, or LONGEST_SETTLE_MS passed).
function viewArrived (bot) {
  return new Promise(resolve => {
    const done = () => {
      clearTimeout(longest)
      bot.world.removeListener('chunkColumnLoad', check)
      bot.removeListener('mindpyViewDistance', check)
      bot.removeListener('end', done)
      resolve()
    }
    const check = () => { if (viewLoaded(bot, viewRadius(bot))) done() }
    const longest = setTimeout(done, LONGEST_SETTLE_MS)
    bot.world.on('chunkColumnLoad', check)
    bot.on('mindpyViewDistance', check)
    bot.once('end', done)
    check()
  })
}

// join(options) -> Promise of a bot; resolves like Promise.allSettled over optionsList, at most `atOnce` joining.
// After a failure no new join starts (the caller gives up on the whole group): those are { status: 'skipped' }.
async function joinPaced (optionsList, join, atOnce = JOINING_AT_ONCE) {
  const results = optionsList.map(() => ({ status: 'skipped' }))
  let next = 0
  let failed = false
  async function worker () {
    while (next < optionsList.length && !failed) {
      const i = next++
      try {
        const bot = await join(optionsList[i])
        results[i] = { status: 'fulfilled', value: bot }
        await viewArrived(bot)
      } catch (reason) {
        results[i] = { status: 'rejected', reason }
        failed = true
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, optionsList.length) }, worker))
  return results
}

module.exports = { joinPaced, followViewDistance, JOINING_AT_ONCE }
