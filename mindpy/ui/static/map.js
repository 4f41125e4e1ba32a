'use strict'
// The top-down map: block colours from the block names the server sends (one colour per kind, shaded by height),
// agents and players as labelled markers, other entities as dots.

const WOOL = {
  white: '#e9ecec', orange: '#f07613', magenta: '#bd44b3', light_blue: '#3aafd9', yellow: '#f8c627', lime: '#70b919',
  pink: '#ed8dac', gray: '#3e4447', light_gray: '#8e8e86', cyan: '#158991', purple: '#792aac', blue: '#35399d',
  brown: '#724728', green: '#546d1b', red: '#a12722', black: '#141519'
}
const BLOCKS = [
  [/water|bubble_column|kelp|seagrass/, '#3f76e4'], [/lava|magma/, '#d25a12'], [/^grass_block$|moss/, '#7cbd6b'],
  [/short_grass|tall_grass|^grass$|fern|sweet_berry/, '#6da85a'], [/leaves/, '#3d7a2a'],
  [/farmland|dirt|podzol|mud|rooted|mycelium/, '#8b6a4a'], [/sand(?!stone)/, '#dbd3a0'], [/sandstone/, '#d8cb8f'],
  [/gravel/, '#8a8380'], [/snow|powder_snow/, '#f4f8fa'], [/ice/, '#a4c4f5'], [/bedrock/, '#4c4c4c'],
  [/_log|_wood|_stem|_hyphae/, '#6b5130'], [/planks|_slab|_stairs|_fence|_door|bookshelf|barrel/, '#a88754'],
  [/crafting_table/, '#b5844a'], [/furnace|smoker|blast/, '#6f6f6f'], [/chest/, '#c58f3b'],
  [/wheat|carrots|potatoes|beetroots|hay/, '#c8b450'], [/pumpkin|melon/, '#e38a1d'], [/sugar_cane|cactus/, '#5f9e3a'],
  [/mushroom/, '#b0433a'], [/torch|lantern|glowstone/, '#ffd866'], [/bed$/, '#b03030'], [/tnt/, '#d63a2c'],
  [/brick/, '#9a5b4a'], [/stone|cobble|andesite|diorite|granite|deepslate|tuff|ore/, '#8a8a8a'],
  [/glass/, '#c6e2ee'], [/flower|poppy|dandelion|tulip|orchid|allium|daisy|cornflower|lily/, '#d65fa0'],
  [/gold/, '#f2d13d'], [/iron/, '#d8d8d8'], [/diamond/, '#5de1dc'], [/emerald/, '#38c064'], [/obsidian/, '#1c1527']
]

const colourCache = new Map()
function blockColour (name) {
  if (colourCache.has(name)) return colourCache.get(name)
  let colour = null
  const dyed = name.match(/^(white|orange|magenta|light_blue|yellow|lime|pink|gray|light_gray|cyan|purple|blue|brown|green|red|black)_/)
  if (dyed) colour = WOOL[dyed[1]]
  for (const [pattern, c] of BLOCKS) { if (!colour && pattern.test(name)) colour = c }
  if (!colour) { // a kind the table does not know: a steady colour from its name
    let h = 0
    for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0
    colour = `hsl(${h % 360}, 35%, 50%)`
  }
  colourCache.set(name, colour)
  return colour
}

function shade (colour, factor) {
  const ctx = shade.ctx || (shade.ctx = document.createElement('canvas').getContext('2d'))
  ctx.fillStyle = colour
  const hex = ctx.fillStyle // normalised to #rrggbb
  const n = parseInt(hex.slice(1), 16)
  const f = v => Math.max(0, Math.min(255, Math.round(v * factor)))
  return `rgb(${f(n >> 16)}, ${f((n >> 8) & 255)}, ${f(n & 255)})`
}

function drawMap (canvas, data) {
  const ctx = canvas.getContext('2d')
  const size = data.size
  const scale = canvas.width / size
  ctx.fillStyle = '#0d0f12'
  ctx.fillRect(0, 0, canvas.width, canvas.height)
  const known = data.heights.filter(h => h !== null)
  const mid = known.length ? known.reduce((a, b) => a + b, 0) / known.length : 0
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const i = row * size + col
      const index = data.cells[i]
      if (index < 0) continue
      const factor = Math.max(0.55, Math.min(1.35, 1 + (data.heights[i] - mid) * 0.06))
      ctx.fillStyle = shade(blockColour(data.names[index]), factor)
      ctx.fillRect(col * scale, row * scale, Math.ceil(scale), Math.ceil(scale))
    }
  }
  ctx.font = '12px system-ui, sans-serif'
  for (const m of data.markers) {
    const x = (m.x - data.x0) * scale
    const y = (m.z - data.z0) * scale
    if (m.kind === 'player') {
      ctx.fillStyle = m.agent ? '#ffdd33' : '#ff5fd2'
      ctx.strokeStyle = '#000'
      ctx.beginPath()
      ctx.arc(x, y, 5, 0, 2 * Math.PI)
      ctx.fill()
      ctx.stroke()
      ctx.lineWidth = 3
      ctx.strokeText(m.name, x + 7, y + 4)
      ctx.lineWidth = 1
      ctx.fillText(m.name, x + 7, y + 4)
    } else {
      ctx.fillStyle = m.kind === 'hostile' ? '#ff4040' : '#ffffff'
      ctx.fillRect(x - 1.5, y - 1.5, 3, 3)
    }
  }
}

window.drawMap = drawMap
