import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";

/** Renders markdown safely: raw HTML in the source is shown as text, never run. */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml>
        {source}
      </ReactMarkdown>
    </div>
  );
}
