// Builds the /hello response: a greeting and a short list of links.
const LINKS = Array.from({ length: 8 }, (_, i) => ({ rel: `item-${i}`, href: `/items/${i}` }));

export function renderGreeting(name) {
  return {
    message: `hello, ${name}`,
    links: LINKS,
  };
}
