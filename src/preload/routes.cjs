'use strict';
/*
 * The routes a service registers, read while `perfgate init` starts it once (loaded by
 * preload.cjs when PERFGATE_ROUTES_FILE is set; a measurement never loads it). It writes
 * { frameworks, routes: [{ method, path, handlers }] } to that file (handlers: the names of the
 * route's own handler functions, which say what a route does as often as its path does), in the order the routes were
 * registered, after every turn of the event loop in which one was registered: the routes an app
 * registers after it listens are written too.
 *
 * Each framework is read through what it offers publicly. express and koa are patched on their
 * prototypes as the app loads them (require, or import of the package's CommonJS entry, which
 * Node loads through the same Module._load), so an app's own reference to them is unchanged:
 * - express 4 and 5: the Router's route() and use() (app.get and app.use call them). A route
 *   knows its path; a router mounted with use(path, router) does not keep the path, so use()
 *   notes it on the layers it adds, and the routers are walked from the ones nobody mounted.
 *   Sub-applications (app.use(path, otherApp)) are wrapped in a closure by express: not read.
 * - fastify: an onRoute hook added to every instance as it is created (fastify publishes each new
 *   instance on the diagnostics channel 'fastify.initialization'), before any plugin registers;
 *   the url it gives includes the plugin prefixes.
 * - koa: a router (@koa/router, koa-router) is found where the app uses its middleware
 *   (app.use(router.routes()) hands koa a function whose .router is the router), and its stack is
 *   read: nested routers are already copied into it with their prefix.
 * Anything else (plain http, a framework not listed) writes no routes, and init says so.
 * Plain CommonJS with no dependencies: it runs inside the user's process before their code, and
 * nothing here may throw into it.
 */
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

const file = process.env.PERFGATE_ROUTES_FILE;
const PATCHED = Symbol.for('perfgate.routes.patched');
/** The path a router was mounted at, on the layers express's use() added for it. */
const MOUNT = Symbol.for('perfgate.routes.mount');

const frameworks = new Set();
/** express routers that had a route or a mount added: the roots are found among them. */
const expressRouters = new Set();
const fastifyRoutes = [];
/** koa routers whose middleware an app uses. */
const koaRouters = new Set();

let scheduled = false;
function schedule() {
  if (scheduled) return;
  scheduled = true;
  const timer = setImmediate(() => {
    scheduled = false;
    write();
  });
  timer.unref();
}

function write() {
  try {
    const routes = [...expressRoutes(), ...fastifyRoutes, ...koaRoutes()];
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify({ frameworks: [...frameworks], routes }));
    fs.renameSync(temporary, file);
  } catch {
    // init says no routes could be read
  }
}

function joinPaths(prefix, route) {
  if (!prefix || prefix === '/') return route;
  if (route === '/' || route === '') return prefix;
  return `${prefix.replace(/\/$/, '')}/${route.replace(/^\//, '')}`;
}

/** The names of a route's handler functions, without the empty and anonymous ones. */
function namesOf(functions) {
  const names = [];
  for (const fn of functions) {
    const name = typeof fn === 'function' ? fn.name : '';
    if (typeof name === 'string' && name && name !== '<anonymous>' && name !== 'anonymous') names.push(name);
  }
  return names;
}

function isExpressRouter(handle) {
  return typeof handle === 'function' && Array.isArray(handle.stack);
}

function expressRoutes() {
  const mounted = new Set();
  for (const router of expressRouters) {
    for (const layer of router.stack || []) if (typeof layer[MOUNT] === 'string' && isExpressRouter(layer.handle)) mounted.add(layer.handle);
  }
  const routes = [];
  const walk = (router, prefix, seen) => {
    if (seen.has(router)) return;
    seen.add(router);
    for (const layer of router.stack || []) {
      const route = layer.route;
      if (route && typeof route.path === 'string') {
        for (const [method, on] of Object.entries(route.methods || {})) {
          if (!on) continue;
          // app.route(path).get(a).post(b): each layer of the route knows its method
          const handlers = namesOf((route.stack || []).filter((l) => l && (!l.method || l.method === method)).map((l) => l.handle));
          routes.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path: joinPaths(prefix, route.path), handlers });
        }
      } else if (typeof layer[MOUNT] === 'string' && isExpressRouter(layer.handle)) {
        walk(layer.handle, joinPaths(prefix, layer[MOUNT]), seen);
      }
    }
  };
  for (const router of expressRouters) if (!mounted.has(router)) walk(router, '', new Set());
  return routes;
}

function koaRoutes() {
  const routes = [];
  for (const router of koaRouters) {
    for (const layer of router.stack || []) {
      if (typeof layer.path !== 'string' || !Array.isArray(layer.methods)) continue;
      const handlers = namesOf(Array.isArray(layer.stack) ? layer.stack : []);
      for (const method of layer.methods) routes.push({ method: String(method).toUpperCase(), path: layer.path, handlers });
    }
  }
  return routes;
}

/** The path use() mounts at: a string first argument, or '/' when the first argument is middleware. */
function mountPath(first) {
  if (typeof first === 'string') return first;
  if (typeof first === 'function' || (Array.isArray(first) && typeof first[0] === 'function')) return '/';
  return null;
}

/** `holder`: express 5's Router.prototype, or express 4's router prototype object (express.Router itself). */
function patchExpressRouter(holder) {
  if (!holder || holder[PATCHED] || typeof holder.route !== 'function' || typeof holder.use !== 'function') return;
  holder[PATCHED] = true;
  frameworks.add('express');
  const route = holder.route;
  const use = holder.use;
  holder.route = function perfgateRoute(...args) {
    const result = route.apply(this, args);
    expressRouters.add(this);
    schedule();
    return result;
  };
  holder.use = function perfgateUse(...args) {
    const before = Array.isArray(this.stack) ? this.stack.length : 0;
    const result = use.apply(this, args);
    try {
      const at = mountPath(args[0]);
      if (at !== null && Array.isArray(this.stack)) for (const layer of this.stack.slice(before)) layer[MOUNT] = at;
      expressRouters.add(this);
      schedule();
    } catch {
      // this mount's routes are not read
    }
    return result;
  };
}

function patchExpress(express) {
  const Router = express?.Router;
  if (typeof Router !== 'function') return;
  if (Router.prototype && typeof Router.prototype.route === 'function') patchExpressRouter(Router.prototype);
  else patchExpressRouter(Router);
}

/** Every fastify instance as it is created, before any plugin registers: its onRoute hook sees every route. */
function onFastifyInstance(message) {
  try {
    frameworks.add('fastify');
    message.fastify.addHook('onRoute', (route) => {
      const handlers = namesOf([route.handler, ...[].concat(route.preHandler || [])]);
      for (const method of [].concat(route.method)) fastifyRoutes.push({ method: String(method).toUpperCase(), path: route.url, handlers });
      schedule();
    });
  } catch {
    // this instance's routes are not read
  }
}

function patchKoa(Application) {
  const proto = typeof Application === 'function' ? Application.prototype : null;
  if (!proto || proto[PATCHED] || typeof proto.use !== 'function' || typeof proto.callback !== 'function') return;
  proto[PATCHED] = true;
  const use = proto.use;
  proto.use = function perfgateKoaUse(fn, ...rest) {
    if (Array.isArray(fn?.router?.stack)) {
      frameworks.add('koa');
      koaRouters.add(fn.router);
      schedule();
    }
    return use.call(this, fn, ...rest);
  };
}

/** The package an absolute path is in (the last node_modules/<name> of it, so pnpm's layout works too). */
const IN_PACKAGE = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)(?:[\\/](?!.*[\\/]node_modules[\\/])|$)/;

function packageOf(request) {
  if (!path.isAbsolute(request)) return request;
  const match = IN_PACKAGE.exec(request);
  return match ? match[1].replace('\\', '/') : null;
}

if (file) {
  require('node:diagnostics_channel').subscribe('fastify.initialization', onFastifyInstance);
  const load = Module._load;
  Module._load = function perfgateLoad(...args) {
    const exports = load.apply(this, args);
    try {
      const name = typeof args[0] === 'string' ? packageOf(args[0]) : null;
      if (name === 'express') patchExpress(exports);
      else if (name === 'koa') patchKoa(exports);
    } catch {
      // the app runs as it would without perfgate; init says which routes it could not read
    }
    return exports;
  };
}
