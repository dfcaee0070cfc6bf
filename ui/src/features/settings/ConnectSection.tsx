import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, Copy, KeyRound } from "lucide-react";

import { inboxApi, type AiClient, type ApiError, type ClientConfig, type McpTransport } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { errorText } from "../../app/errorText";
import { authorName } from "../../app/names";
import { authorsQuery } from "../inbox/queries";
import { connectQuery, mintedFor, transportFor } from "./connect";

/** Product names: the same in every language. */
const CLIENTS: { id: AiClient; name: string }[] = [
  { id: "claude-code", name: "Claude Code" },
  { id: "claude-desktop", name: "Claude Desktop" },
  { id: "cursor", name: "Cursor" },
];

/** Settings → Connect AI clients (SPEC X2): the exact configuration that
 * lets Claude Code, Claude Desktop or Cursor use Colmena over MCP, as a
 * chosen author, with a token minted on request. */
export function ConnectSection() {
  const { t } = useTranslation();
  const authors = useQuery(authorsQuery);
  const owner = authors.data?.find((a) => a.isOwner);
  const [client, setClient] = useState<AiClient>("claude-code");
  const [picked, setTransport] = useState<McpTransport>("stdio");
  const [chosen, setAuthor] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const transport = transportFor(client, picked);
  const author = chosen ?? owner?.id ?? null;
  const request = { client, transport, author, mintToken: false };
  const config = useQuery({ ...connectQuery(request), enabled: author !== null });
  const mint = useMutation<ClientConfig, ApiError>({
    mutationFn: () => inboxApi.mcpClientConfig({ ...request, mintToken: true }),
  });
  const shown = mintedFor(mint.data, request) ?? config.data;
  const choose = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setCopied(false);
    mint.reset();
  };
  const copy = () => {
    if (shown) void navigator.clipboard?.writeText(shown.text).then(() => setCopied(true));
  };
  return (
    <section className="section" data-testid="section-connect">
      <header className="section-head">
        <div>
          <h2>{t("connect.title")}</h2>
          <p className="section-subtitle">{t("connect.subtitle")}</p>
        </div>
      </header>
      <div className="card settings-card connect-card">
        <div className="connect-choices">
          <Field id="connect-client" label={t("connect.client")}>
            <Segmented<AiClient>
              label={t("connect.client")}
              value={client}
              onChange={choose(setClient)}
              options={CLIENTS.map((c) => ({ value: c.id, label: c.name, testId: `connect-client-${c.id}` }))}
            />
          </Field>
          <Field id="connect-transport" label={t("connect.transport")} hint={client === "claude-desktop" ? t("connect.stdioOnly") : t(`connect.transports.${transport}Hint`)}>
            <Segmented<McpTransport>
              label={t("connect.transport")}
              value={transport}
              onChange={choose(setTransport)}
              disabled={client === "claude-desktop"}
              options={[
                { value: "stdio", label: t("connect.transports.stdio"), testId: "connect-transport-stdio" },
                { value: "http", label: t("connect.transports.http"), testId: "connect-transport-http" },
              ]}
            />
          </Field>
          <Field id="connect-author" label={t("connect.author")} hint={t("connect.authorHint")}>
            <select
              id="connect-author"
              className="input"
              value={author ?? ""}
              onChange={(e) => choose(setAuthor)(e.target.value)}
              data-testid="connect-author"
            >
              {authors.data?.map((a) => (
                <option key={a.id} value={a.id}>
                  {authorName(t, a)}
                </option>
              ))}
            </select>
          </Field>
        </div>
        {config.error && <Banner tone="danger">{errorText(t, config.error as ApiError)}</Banner>}
        {mint.error && <Banner tone="danger">{errorText(t, mint.error)}</Banner>}
        {shown && (
          <>
            <div className="connect-config">
              <pre data-testid="connect-config">
                <code>{shown.text}</code>
              </pre>
              <Button size="sm" icon={copied ? <Check size={14} /> : <Copy size={14} />} onClick={copy} data-testid="connect-copy">
                {copied ? t("connect.copied") : t("connect.copy")}
              </Button>
            </div>
            <p className="muted small" data-testid="connect-where">
              {t(`connect.where.${shown.client}`)}
            </p>
            {shown.needsToken && (
              <div className="connect-token">
                <Banner tone="info">{t("connect.needsToken")}</Banner>
                <Button icon={<KeyRound size={14} />} busy={mint.isPending} onClick={() => mint.mutate()} data-testid="connect-mint">
                  {t("connect.mint")}
                </Button>
              </div>
            )}
            {shown.tokenMinted && <Banner tone="warning">{t("connect.minted")}</Banner>}
          </>
        )}
        <p className="muted small">{t("connect.tools")}</p>
      </div>
    </section>
  );
}
