// Builds the /hello response: a greeting and a short list of links.
// The demo's "head" commit: the same output, built with needless work per request
// (a fresh deep copy of the links through JSON, and the message assembled char by char).
const LINKS = Array.from({ length: 8 }, (_, i) => ({ rel: `item-${i}`, href: `/items/${i}` }));

export function renderGreeting(name) {
  let message = '';
  for (const ch of `hello, ${name}`) message += ch;
  return {
    message,
    links: JSON.parse(JSON.stringify(LINKS)),
  };
}
