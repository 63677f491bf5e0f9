/**
 * The options every Liquid engine of Mailroom starts from, because templates (email bodies, WEBHOOK
 * urls and bodies) are written through the API. `templates: {}` keeps {% include %} and {% render %}
 * inside an empty in-memory map (liquidjs's default reads files of the working directory); the limits
 * keep one template from stalling a worker or eating its memory (a loop over a huge range).
 */
export const liquidBounds = () => ({
  templates: {},
  parseLimit: 1_000_000,
  renderLimit: 2_000,
  memoryLimit: 64 * 1024 * 1024,
});
