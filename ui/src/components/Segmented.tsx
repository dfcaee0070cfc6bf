import type { ReactNode } from "react";

interface Option<T extends string> {
  value: T;
  label: ReactNode;
  testId?: string;
}

interface SegmentedProps<T extends string> {
  label: string;
  value: T;
  options: Option<T>[];
  onChange(value: T): void;
  disabled?: boolean;
}

/** A row of mutually exclusive choices (a radio group that looks like tabs). */
export function Segmented<T extends string>({ label, value, options, onChange, disabled }: SegmentedProps<T>) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          role="radio"
          aria-checked={option.value === value}
          className={option.value === value ? "segment segment-active" : "segment"}
          disabled={disabled}
          data-testid={option.testId}
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}
