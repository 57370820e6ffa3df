/**
 * A horizontal bar chart of issue counts per category, as inline SVG (no script, no library, no
 * style attribute: colours are presentation attributes, which the page's CSP allows).
 */
import { html, type SafeHtml } from './html-template.js';

export interface Bar {
  readonly label: string;
  readonly count: number;
  /** Drawn in red: these issues stop pre-qualification. */
  readonly highlighted: boolean;
}

const WIDTH = 900;
const LABEL_WIDTH = 320;
const COUNT_WIDTH = 70;
const ROW_HEIGHT = 24;
const BAR_HEIGHT = 16;
const TOP = 8;
const LEGEND_HEIGHT = 28;
const MAX_LABEL_CHARS = 44;
export const HIGHLIGHT_COLOUR = '#c62828';
export const NORMAL_COLOUR = '#1976d2';

function shorten(label: string): string {
  return label.length <= MAX_LABEL_CHARS ? label : `${label.slice(0, MAX_LABEL_CHARS - 1)}…`;
}

export function barChart(bars: readonly Bar[], caption: string): SafeHtml {
  const max = Math.max(1, ...bars.map((bar) => bar.count));
  const span = WIDTH - LABEL_WIDTH - COUNT_WIDTH;
  const height = TOP + bars.length * ROW_HEIGHT + LEGEND_HEIGHT;
  const rows = bars.map((bar, index) => {
    const y = TOP + index * ROW_HEIGHT;
    const width = Math.max(2, Math.round((bar.count / max) * span));
    const colour = bar.highlighted ? HIGHLIGHT_COLOUR : NORMAL_COLOUR;
    return html`<g class="${bar.highlighted ? 'bar highlighted' : 'bar'}" data-count="${bar.count}"><title>${bar.label}: ${bar.count}</title>
<text x="${LABEL_WIDTH - 8}" y="${y + BAR_HEIGHT - 3}" text-anchor="end">${shorten(bar.label)}</text>
<rect x="${LABEL_WIDTH}" y="${y}" width="${width}" height="${BAR_HEIGHT}" rx="2" fill="${colour}"></rect>
<text x="${LABEL_WIDTH + width + 6}" y="${y + BAR_HEIGHT - 3}">${bar.count}</text></g>`;
  });
  const legendY = TOP + bars.length * ROW_HEIGHT + 8;
  return html`<svg class="chart" role="img" aria-label="${caption}" viewBox="0 0 ${WIDTH} ${height}" xmlns="http://www.w3.org/2000/svg"><title>${caption}</title>
${rows}
<rect x="${LABEL_WIDTH}" y="${legendY}" width="12" height="12" fill="${HIGHLIGHT_COLOUR}"></rect><text x="${LABEL_WIDTH + 18}" y="${legendY + 11}">stops pre-qualification</text>
<rect x="${LABEL_WIDTH + 190}" y="${legendY}" width="12" height="12" fill="${NORMAL_COLOUR}"></rect><text x="${LABEL_WIDTH + 208}" y="${legendY + 11}">acceptable</text></svg>`;
}
