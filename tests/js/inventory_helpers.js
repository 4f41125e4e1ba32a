'use strict'
// Test helpers: read a bot's inventory as the client sees it and as the server sees it, in one call each
// (reading JS objects item by item from Python is slow). Both come back as JSON text of the same shape:
// {slots: [[name, count] | null, ... 46 player-window slots], cursor: [name, count] | null}.

const describe = item => (item ? [item.name, item.count] : null)

function clientView (bot) {
  return JSON.stringify({
    slots: bot.inventory.slots.slice(0, 46).map(describe),
    cursor: describe(bot.inventory.selectedItem)
  })
}

// Ask the embedded server (the /mindpy_inv command) for its view of this bot's inventory.
function serverView (bot, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { bot.removeListener('messagestr', onMessage); reject(new Error('no /mindpy_inv reply')) }, timeoutMs)
    function onMessage (text) {
      if (!text.startsWith('mindpy_inv ')) return
      clearTimeout(timer)
      bot.removeListener('messagestr', onMessage)
      resolve(text.slice('mindpy_inv '.length))
    }
    bot.on('messagestr', onMessage)
    bot.chat('/mindpy_inv ' + bot.username)
  })
}

// Slot numbers holding an item of this name (player window numbering).
function slotsOf (bot, name) {
  return JSON.stringify(bot.inventory.slots.map((s, i) => (s && s.name === name ? i : -1)).filter(i => i >= 0))
}

// What an open window holds in its container part: {name: count}.
function containerCounts (window) {
  const counts = {}
  for (const item of window.containerItems()) counts[item.name] = (counts[item.name] || 0) + item.count
  return JSON.stringify(counts)
}

module.exports = { clientView, serverView, slotsOf, containerCounts }

// A small seeded random generator (mulberry32), so a failing click sequence can be replayed.
function randomGenerator (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// Play `count` random clicks on the player inventory through bot.clickWindow: left and right clicks,
// shift-clicks and number-key swaps on every slot (crafting grid and result, armour, main, hotbar,
// offhand). Returns the clicks made, as JSON text [[slot, button, mode], ...].
async function randomClicks (bot, seed, count) {
  const random = randomGenerator(seed)
  const pick = n => Math.floor(random() * n)
  const made = []
  for (let k = 0; k < count; k++) {
    const slot = pick(46)
    const kind = pick(10)
    let click
    if (kind < 6) click = [slot, pick(2), 0]
    else if (kind < 8) click = [slot, 0, 1]
    else click = [slot, pick(9), 2]
    // the client refuses a number key or shift-click while an item is on the cursor (as vanilla's does)
    if (click[2] !== 0 && bot.inventory.selectedItem) click = [slot, pick(2), 0]
    made.push(click)
    await bot.clickWindow(...click)
  }
  // put down whatever is left on the cursor
  for (let i = 9; i < 45 && bot.inventory.selectedItem; i++) {
    if (!bot.inventory.slots[i]) { made.push([i, 0, 0]); await bot.clickWindow(i, 0, 0) }
  }
  return JSON.stringify(made)
}

module.exports.randomClicks = randomClicks

// Press Q (drop one) or Ctrl+Q (drop the stack) with the held item, as a vanilla client does: mineflayer's
// toss goes through window clicks instead, so this sends the player-action packet itself.
function dropHeld (bot, wholeStack) {
  bot._client.write('block_dig', {
    status: wholeStack ? 3 : 4,
    location: { x: 0, y: 0, z: 0 },
    face: 0,
    sequence: 0
  })
  return true
}

module.exports.dropHeld = dropHeld
