// Notices agents send to the person (the `notify_user` tool), shown as
// toasts in the corner until dismissed; urgent ones stay, others fade.

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Bell, X } from "lucide-react";

import { onUserNotice, type Notice } from "../../api";
import { IconButton } from "../../components/Button";

interface Toast extends Notice {
  key: number;
}

const FADE_MS = 12_000;

export function NoticeToasts() {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);

  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let cancelled = false;
    let next = 0;
    void onUserNotice((notice) => {
      const key = ++next;
      setToasts((list) => [...list.slice(-3), { ...notice, key }]);
      if (!notice.urgent) window.setTimeout(() => setToasts((list) => list.filter((x) => x.key !== key)), FADE_MS);
    })
      .then((stop) => {
        if (cancelled) stop();
        else unlisten = stop;
      })
      .catch((error: unknown) => console.warn("notices are off:", error));
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, []);

  if (toasts.length === 0) return null;
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.key} className={toast.urgent ? "toast toast-urgent" : "toast"} data-testid="notice">
          <Bell size={15} aria-hidden="true" />
          <div>
            <strong>{toast.title}</strong>
            {toast.body && <p>{toast.body}</p>}
            {toast.from && <p className="muted small">{t("notices.from", { from: toast.from })}</p>}
          </div>
          <IconButton label={t("common.close")} onClick={() => setToasts((list) => list.filter((x) => x.key !== toast.key))}>
            <X size={13} />
          </IconButton>
        </div>
      ))}
    </div>
  );
}
