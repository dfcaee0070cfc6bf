import type { SnippetPart } from "../api";

/** A search snippet with the matched words marked — built from parts, never from HTML. */
export function Snippet({ parts }: { parts: SnippetPart[] }) {
  return (
    <p className="snippet">
      {parts.map((part, i) => (part.highlighted ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </p>
  );
}
