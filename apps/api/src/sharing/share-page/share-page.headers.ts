import type { Response } from 'express';
import { RenderedAnswer } from './share-page.service';
import { SHARE_PAGE_STYLE_HASH } from './share-page.view';

/**
 * The share page loads nothing and runs nothing: its one style sheet is allowed by its hash, and
 * its icon is a data: URL. Any site may frame it (it has no form, link or button to trick a
 * visitor into pressing). Reasons: docs/security.md, "Share page and badge".
 */
export const SHARE_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${SHARE_PAGE_STYLE_HASH}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors *',
].join('; ');

/** The badge, opened on its own, is an SVG document: it may load and run nothing either. */
export const BADGE_CSP = "default-src 'none'; frame-ancestors *";

/** Browsers and proxies may reuse a shared view for a minute; a 404 is never kept. */
export const SHARED_CACHE_CONTROL = 'public, max-age=60';
export const NOT_FOUND_CACHE_CONTROL = 'no-store';

function send(response: Response, answer: RenderedAnswer, type: string, csp: string): void {
  response
    .status(answer.status)
    .type(type)
    .set('Content-Security-Policy', csp)
    .set('Cache-Control', answer.status === 200 ? SHARED_CACHE_CONTROL : NOT_FOUND_CACHE_CONTROL)
    // Other sites embed these: an <img> of the badge, an <iframe> of the page.
    .set('Cross-Origin-Resource-Policy', 'cross-origin')
    .removeHeader('X-Frame-Options');
  response.send(answer.body);
}

export function sendPage(response: Response, answer: RenderedAnswer): void {
  send(response, answer, 'text/html; charset=utf-8', SHARE_PAGE_CSP);
}

export function sendBadge(response: Response, answer: RenderedAnswer): void {
  send(response, answer, 'image/svg+xml; charset=utf-8', BADGE_CSP);
}
