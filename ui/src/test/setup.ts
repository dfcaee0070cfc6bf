import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

import { loadLanguage } from "../i18n";

// Both languages, English in use: tests switch with i18n.changeLanguage.
await loadLanguage("es");
await loadLanguage("en");

afterEach(() => cleanup());
