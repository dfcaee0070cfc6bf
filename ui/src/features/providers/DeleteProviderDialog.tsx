import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { api, type ApiError, type Provider } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { errorText } from "../../app/errorText";
import { providerKeys } from "./queries";

export function DeleteProviderDialog({ provider, onClose }: { provider: Provider; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const remove = useMutation<null, ApiError>({
    mutationFn: () => api.deleteProvider(provider.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: providerKeys.providers });
      void client.invalidateQueries({ queryKey: providerKeys.models });
      onClose();
    },
  });
  return (
    <Dialog
      title={t("providers.deleteTitle", { name: provider.name })}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="delete-provider-dialog"
      width={460}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            {t("common.cancel")}
          </Button>
          <Button variant="danger" busy={remove.isPending} onClick={() => remove.mutate()} data-testid="confirm-delete-provider">
            {t("providers.deleteConfirm")}
          </Button>
        </>
      }
    >
      <p className="dialog-text">
        {provider.modelCount === 0
          ? t("providers.deleteBodyNone")
          : t("providers.deleteBody", { count: provider.modelCount })}
      </p>
      {remove.error && <Banner tone="danger">{errorText(t, remove.error)}</Banner>}
    </Dialog>
  );
}
