import type { MouseEvent } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

import { desktopApi } from "../api";

/** Links in model output leave through the system browser: the window only
 * ever shows the app's own pages (the backend refuses any other navigation). */
function openOutside(event: MouseEvent<HTMLAnchorElement>, href: string | undefined) {
  event.preventDefault();
  if (href && /^https?:\/\//i.test(href)) {
    desktopApi.openLink(href).catch((error: unknown) => console.warn("link not opened:", error));
  }
}

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} onClick={(event) => openOutside(event, href)} rel="noreferrer noopener" title={href}>
      {children}
    </a>
  ),
};

/** Renders markdown safely: raw HTML in the source is shown as text, never run. */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml components={components}>
        {source}
      </ReactMarkdown>
    </div>
  );
}
