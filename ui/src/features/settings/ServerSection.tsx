import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Server } from "lucide-react";

import { inboxApi, toApiError, type ApiError, type ServerStatus } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Spinner } from "../../components/Spinner";
import { errorText, fieldErrorText } from "../../app/errorText";
import { inboxKeys, serverQuery } from "../inbox/queries";

/** The bus server the app runs on 127.0.0.1, for local sessions (SPEC B3). */
export function ServerSection() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const status = useQuery(serverQuery);
  // null: show the port the server uses; a string: what the person typed.
  const [typed, setPort] = useState<string | null>(null);
  const port = typed ?? String(status.data?.port ?? "");
  const save = useMutation<ServerStatus, ApiError>({
    mutationFn: () => inboxApi.setServerPort(Number.parseInt(port, 10) || 0),
    onSuccess: (next) => client.setQueryData(inboxKeys.server, next),
  });
  const problems = save.error?.fieldProblems() ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const data = status.data;
  return (
    <section className="section" data-testid="section-server">
      <header className="section-head">
        <div>
          <h2>{t("server.title")}</h2>
          <p className="section-subtitle">{t("server.subtitle")}</p>
        </div>
      </header>
      <div className="card settings-card server-card">
        <div className="card-title server-state" data-testid="server-state">
          <Server size={18} aria-hidden="true" />
          {/* The server starts just after the first frame: until its
              answer comes, it is not known to be stopped. */}
          {data?.url ? (
            <span>
              {t("server.running")} <code data-testid="server-url">{data.url}</code>
            </span>
          ) : status.isPending ? (
            <span>
              <Spinner size={14} /> {t("common.loading")}
            </span>
          ) : (
            <span>{t("server.stopped")}</span>
          )}
        </div>
        {data?.error && <Banner tone="danger">{t("server.failed", { message: data.error })}</Banner>}
        {status.error && <Banner tone="danger">{errorText(t, toApiError(status.error))}</Banner>}
        <form className="form form-inline" onSubmit={submit}>
          <Field id="server-port" label={t("server.port")} hint={t("server.portHint")} error={fieldErrorText(t, problems.port, save.error)}>
            <input id="server-port" className="input" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} data-testid="server-port" />
          </Field>
          <Button type="submit" variant="primary" busy={save.isPending} data-testid="server-save">
            {t("server.apply")}
          </Button>
        </form>
        <p className="muted small">{t("server.apiHint")}</p>
      </div>
    </section>
  );
}
