// An order service on Koa 3: GET /orders/:id prices an order's lines (quantity, unit price,
// discount, tax by region) and answers its summary as JSON. Orders are generated once at start
// from a fixed seed, so both sides serve the same data. alloc.json's extraBytes: what head's
// change allocates more per request (recordAudit's entry), 0 on base.
const Koa = require('koa');
const Router = require('@koa/router');
const { extraBytes } = require('./alloc.json');

const REGIONS = { eu: 0.2, us: 0.07, uk: 0.2, ca: 0.13 };
const SKUS = Array.from({ length: 200 }, (_, i) => ({ sku: `SKU-${1000 + i}`, name: `Item ${i}`, cents: 199 + ((i * 7919) % 9000) }));

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const orders = Array.from({ length: 500 }, (_, id) => ({
  id,
  region: Object.keys(REGIONS)[id % 4],
  customer: { id: 10_000 + id, name: `Customer ${id}`, tier: id % 5 === 0 ? 'gold' : 'standard' },
  lines: Array.from({ length: 3 + Math.floor(random() * 8) }, () => ({ ...SKUS[Math.floor(random() * SKUS.length)], quantity: 1 + Math.floor(random() * 4) })),
}));

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

function priceLine(line, tier) {
  const gross = line.cents * line.quantity;
  const discount = tier === 'gold' ? Math.round(gross * 0.05) : 0;
  return { sku: line.sku, name: line.name, quantity: line.quantity, net: gross - discount, discount };
}

function summarize(order) {
  const lines = order.lines.map((line) => priceLine(line, order.customer.tier));
  const net = lines.reduce((sum, line) => sum + line.net, 0);
  const tax = Math.round(net * REGIONS[order.region]);
  return {
    id: order.id,
    customer: order.customer.name,
    lines: lines.map((line) => ({ ...line, total: money.format(line.net / 100) })),
    net: money.format(net / 100),
    tax: money.format(tax / 100),
    total: money.format((net + tax) / 100),
  };
}

// An audit trail kept for the last order served: head's change, extraBytes more per request.
const audit = { last: null };
const auditElements = Math.max(0, Math.round((extraBytes - 48) / 8));
function recordAudit(summary) {
  if (auditElements > 0) audit.last = { id: summary.id, marks: new Array(auditElements).fill(summary.id) };
}

const router = new Router();
router.get('/orders/:id', (ctx) => {
  const order = orders[Number(ctx.params.id) % orders.length];
  const summary = summarize(order);
  recordAudit(summary);
  ctx.body = summary;
});

const app = new Koa();
app.use(router.routes());
app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
