import { useTranslation } from "react-i18next";

import { Button } from "./Button";
import { Dialog } from "./Dialog";

interface ConfirmDialogProps {
  title: string;
  body: string;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
  /** The confirm button's test id. */
  confirmTestId?: string;
}

/** Asks before something that cannot be undone (a delete). */
export function ConfirmDialog({ title, body, busy = false, onConfirm, onCancel, confirmTestId }: ConfirmDialogProps) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={title}
      onClose={onCancel}
      closeLabel={t("common.close")}
      footer={
        <>
          <span className="spacer" />
          <Button variant="ghost" onClick={onCancel}>
            {t("common.cancel")}
          </Button>
          <Button variant="danger" busy={busy} onClick={onConfirm} data-testid={confirmTestId}>
            {t("common.delete")}
          </Button>
        </>
      }
    >
      <p>{body}</p>
    </Dialog>
  );
}
