'use strict'
// A web page showing what one bot sees, drawn in the browser by prismarine-viewer's client (three.js, WebGL).
// We serve its built page assets and feed its socket.io protocol ourselves: 'version', then 'loadChunk',
// 'unloadChunk', 'blockUpdate', 'entity' and 'position' events, bound to 127.0.0.1 on a port of our choice.
//
// The world is shown lifted: the client meshes only the 16 sections of y 0-255, and worlds since 1.18 start at
// y -64, so every y sent is raised by -minY (64): a chunk column is sent with minY 0, positions with y + 64.
// The client then draws y -64 to 191, which covers the superflat ground (y -64 to -61) and what stands on it.

const path = require('path')
const http = require('http')
const express = require('express')
const { Server } = require('socket.io')

const PUBLIC = path.join(path.dirname(require.resolve('prismarine-viewer/package.json')), 'public')
const PAGE = require('./page')
// the version table alone: the package's index loads the Node renderer, which needs the native canvas package
const SUPPORTED = require('prismarine-viewer/viewer/lib/version').supportedVersions

const NOT_OWN_SITE = "this request is not for this 3D view's own page (its Host or Origin)\n"
const viewers = new Map()
let nextId = 1

function chunkOf (position) {
  return [Math.floor(position.x / 16), Math.floor(position.z / 16)]
}

// The columns of a square of side 2 * distance - 1 around (cx, cz), nearest first.
function columnsAround (cx, cz, distance) {
  const out = []
  for (let dx = -distance + 1; dx < distance; dx++) {
    for (let dz = -distance + 1; dz < distance; dz++) out.push([cx + dx, cz + dz, dx * dx + dz * dz])
  }
  out.sort((a, b) => a[2] - b[2])
  return out.map(([x, z]) => [x, z])
}

class BotViewer {
  constructor (bot, { firstPerson, viewDistance }) {
    this.id = nextId++
    this.bot = bot
    this.firstPerson = firstPerson
    this.viewDistance = viewDistance
    this.lift = Math.max(0, -(bot.game && bot.game.minY ? bot.game.minY : 0))
    this.center = chunkOf(bot.entity.position)
    this.shown = new Set() // "x,z" chunk coordinates (in blocks, as the client keys them) sent to every socket
    this.closed = false
    this.listeners = {}

    const app = express()
    // its own page only, as the dashboard: a page of another site, or its name pointed at 127.0.0.1, gets nothing
    app.use((req, res, next) => this.ownSite(req) ? next() : res.status(403).type('text').send(NOT_OWN_SITE))
    // no compression: on 127.0.0.1 gzipping the 63 MB worker script for each of the page's workers costs more
    // than sending it
    app.get('/', (req, res) => res.type('html').send(PAGE))
    app.get('/favicon.ico', (req, res) => res.status(204).end())
    app.get('/status', (req, res) => res.json(this.status()))
    // the assets never change while a viewer runs: cached, the page's four mesh workers fetch their 63 MB script
    // (minecraft-data for every version) once instead of four times
    app.use('/', express.static(PUBLIC, { index: false, maxAge: '1h', immutable: true }))
    this.server = http.createServer(app)
    this.io = new Server(this.server, {
      path: '/socket.io', serveClient: false, allowRequest: (req, done) => done(null, this.ownSite(req))
    })
    this.io.on('connection', socket => this.welcome(socket))
  }

  listen (port) {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject)
        this.port = this.server.address().port
        this.follow()
        resolve(this.port)
      })
    })
  }

  // Whether a request is addressed to this page's own address (Host) and comes from its page or from no page.
  ownSite (req) {
    const own = [`127.0.0.1:${this.port}`, `localhost:${this.port}`, `[::1]:${this.port}`]
    const origin = req.headers.origin
    return own.includes(String(req.headers.host || '').toLowerCase()) &&
      (origin === undefined || own.some(address => String(origin).toLowerCase() === `http://${address}`))
  }

  lifted (p) {
    return { x: p.x, y: p.y + this.lift, z: p.z }
  }

  columnJson (column) {
    // toJson() starts with worldHeight then minY; only minY changes
    const json = column.toJson()
    if (!this.lift) return json
    return json.replace(/^\{"worldHeight":(\d+),"minY":-?\d+/, (all, height) => `{"worldHeight":${height},"minY":0`)
  }

  column (x, z) {
    try {
      return this.bot.world.getColumn(x, z) || null
    } catch (err) {
      return null
    }
  }

  // Whether a page is connected: without one, nothing is encoded or sent (the listeners only keep count).
  watched () {
    return this.io.engine.clientsCount > 0
  }

  // A column in view and loaded, sent to one socket (on connection).
  sendColumn (socket, x, z) {
    const column = this.column(x, z)
    if (column) socket.emit('loadChunk', { x: x * 16, z: z * 16, chunk: this.columnJson(column) })
  }

  // A column that came into view (or was sent again by the server): shown from now on, sent to the open pages.
  offer (x, z) {
    const column = this.column(x, z)
    if (!column) return
    this.shown.add(`${x},${z}`)
    if (this.watched()) this.io.emit('loadChunk', { x: x * 16, z: z * 16, chunk: this.columnJson(column) })
  }

  inView (x, z) {
    return Math.abs(x - this.center[0]) < this.viewDistance && Math.abs(z - this.center[1]) < this.viewDistance
  }

  positionPacket () {
    const e = this.bot.entity
    const packet = { pos: this.lifted(e.position), yaw: e.yaw, addMesh: !this.firstPerson }
    if (this.firstPerson) packet.pitch = e.pitch
    return packet
  }

  entityPacket (e, full) {
    const packet = { id: e.id, pos: this.lifted(e.position) }
    if (full) Object.assign(packet, { name: e.name, width: e.width, height: e.height, username: e.username })
    else Object.assign(packet, { pitch: e.pitch, yaw: e.yaw })
    return packet
  }

  welcome (socket) {
    if (this.closed) { socket.disconnect(true); return }
    socket.emit('version', this.bot.version)
    for (const key of this.shown) {
      const [x, z] = key.split(',').map(Number)
      this.sendColumn(socket, x, z)
    }
    for (const id in this.bot.entities) {
      const e = this.bot.entities[id]
      if (e && e !== this.bot.entity && e.position) socket.emit('entity', this.entityPacket(e, true))
    }
    socket.emit('position', this.positionPacket())
  }

  // Move the square of columns in view to the bot's chunk: drop what left it, send what came into it.
  recenter () {
    this.center = chunkOf(this.bot.entity.position)
    for (const key of [...this.shown]) {
      const [x, z] = key.split(',').map(Number)
      if (!this.inView(x, z)) {
        this.shown.delete(key)
        this.io.emit('unloadChunk', { x: x * 16, z: z * 16 })
      }
    }
    for (const [x, z] of columnsAround(this.center[0], this.center[1], this.viewDistance)) {
      if (!this.shown.has(`${x},${z}`)) this.offer(x, z)
    }
  }

  follow () {
    const bot = this.bot
    this.listeners = {
      move: () => {
        const [cx, cz] = chunkOf(bot.entity.position)
        if (cx !== this.center[0] || cz !== this.center[1]) this.recenter()
        if (this.watched()) this.io.emit('position', this.positionPacket())
      },
      chunkColumnLoad: (p) => {
        const x = Math.floor(p.x / 16)
        const z = Math.floor(p.z / 16)
        // a column sent again (the server resent it) replaces the client's copy
        if (this.inView(x, z)) this.offer(x, z)
      },
      chunkColumnUnload: (p) => {
        const key = `${Math.floor(p.x / 16)},${Math.floor(p.z / 16)}`
        if (this.shown.delete(key) && this.watched()) this.io.emit('unloadChunk', { x: Math.floor(p.x / 16) * 16, z: Math.floor(p.z / 16) * 16 })
      },
      blockUpdate: (oldBlock, newBlock) => {
        if (!newBlock || !newBlock.position || !this.watched()) return
        this.io.emit('blockUpdate', { pos: this.lifted(newBlock.position), stateId: newBlock.stateId })
      },
      entitySpawn: (e) => {
        if (e !== bot.entity && e.position && this.watched()) this.io.emit('entity', this.entityPacket(e, true))
      },
      entityMoved: (e) => {
        if (e !== bot.entity && e.position && this.watched()) this.io.emit('entity', this.entityPacket(e, false))
      },
      entityGone: (e) => { if (this.watched()) this.io.emit('entity', { id: e.id, delete: true }) },
      end: () => { closeViewer(this.id) } // the bot left: its page stops too
    }
    for (const [event, listener] of Object.entries(this.listeners)) bot.on(event, listener)
    this.recenter()
  }

  // How many columns are in view and sent: a page has drawn the world once it holds that many.
  status () {
    return { columns: this.shown.size, version: this.bot.version, firstPerson: this.firstPerson, lift: this.lift }
  }

  close () {
    if (this.closed) return Promise.resolve()
    this.closed = true
    for (const [event, listener] of Object.entries(this.listeners)) this.bot.removeListener(event, listener)
    this.listeners = {}
    return new Promise(resolve => {
      this.io.disconnectSockets(true)
      this.io.close(() => resolve())
      if (this.server.closeAllConnections) this.server.closeAllConnections()
    })
  }
}

async function openViewer (bot, port, firstPerson, viewDistance) {
  if (!bot.entity) throw new Error('the bot has not spawned yet')
  if (!SUPPORTED.includes(bot.version)) {
    // the client falls back to the last version of the same minor line it knows, if any
    const minor = bot.version.split('.').slice(0, 2).join('.')
    if (!SUPPORTED.some(v => v.startsWith(minor))) {
      throw new Error(`prismarine-viewer cannot draw Minecraft ${bot.version} (it knows ${SUPPORTED.join(', ')})`)
    }
  }
  const viewer = new BotViewer(bot, { firstPerson: !!firstPerson, viewDistance: Math.max(1, viewDistance | 0) })
  await viewer.listen(port | 0)
  viewers.set(viewer.id, viewer)
  return JSON.stringify({ id: viewer.id, port: viewer.port })
}

async function closeViewer (id) {
  const viewer = viewers.get(id)
  if (!viewer) return false
  viewers.delete(id)
  await viewer.close()
  return true
}

function viewerStatusJson (id) {
  const viewer = viewers.get(id)
  return JSON.stringify(viewer ? viewer.status() : null)
}

module.exports = { openViewer, closeViewer, viewerStatusJson, columnsAround }
