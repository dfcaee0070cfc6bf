import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Plug, Plus } from "lucide-react";

import type { Provider } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { LocalModelsCard } from "../localModels/LocalModelsCard";
import { DefaultModelCard } from "./DefaultModelCard";
import { DeleteProviderDialog } from "./DeleteProviderDialog";
import { ProviderCard } from "./ProviderCard";
import { ProviderDialog } from "./ProviderDialog";
import { providersQuery } from "./queries";

type Open = { kind: "create" } | { kind: "edit"; provider: Provider } | { kind: "delete"; provider: Provider } | null;

export function ProvidersSection() {
  const { t } = useTranslation();
  const providers = useQuery(providersQuery);
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);

  return (
    <section className="section" data-testid="section-providers">
      <header className="section-head">
        <div>
          <h2>{t("providers.title")}</h2>
          <p className="section-subtitle">{t("providers.subtitle")}</p>
        </div>
        <Button
          variant="primary"
          icon={<Plus size={16} />}
          onClick={() => setOpen({ kind: "create" })}
          data-testid="add-provider"
        >
          {t("providers.add")}
        </Button>
      </header>

      {providers.isPending && (
        <div className="loading">
          <Spinner /> {t("common.loading")}
        </div>
      )}
      {providers.isError && (
        <Banner tone="danger">
          {t("providers.loadFailed")}{" "}
          <button className="link" onClick={() => void providers.refetch()}>
            {t("common.retry")}
          </button>
        </Banner>
      )}
      {providers.data?.length === 0 && (
        <EmptyState
          icon={<Plug size={28} />}
          title={t("providers.empty.title")}
          body={t("providers.empty.body")}
          action={
            <Button variant="primary" icon={<Plus size={16} />} onClick={() => setOpen({ kind: "create" })}>
              {t("providers.add")}
            </Button>
          }
        />
      )}
      {(providers.data?.length ?? 0) > 0 && <DefaultModelCard />}
      <LocalModelsCard />
      <div className="card-list">
        {providers.data?.map((provider) => (
          <ProviderCard
            key={provider.id}
            provider={provider}
            onEdit={() => setOpen({ kind: "edit", provider })}
            onDelete={() => setOpen({ kind: "delete", provider })}
          />
        ))}
      </div>

      {open?.kind === "create" && <ProviderDialog onClose={close} />}
      {open?.kind === "edit" && <ProviderDialog provider={open.provider} onClose={close} />}
      {open?.kind === "delete" && <DeleteProviderDialog provider={open.provider} onClose={close} />}
    </section>
  );
}
