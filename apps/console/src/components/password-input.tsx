import { PasswordInput as MantinePasswordInput, type PasswordInputProps } from '@mantine/core';
import { useUncontrolled } from '@mantine/hooks';
import type { KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A password or other secret input whose show/hide toggle a keyboard reaches: Mantine's own takes
 * no tab stop (`tabIndex -1`) and answers only a pointer and Space. Here the toggle is the next tab
 * stop after the input, Enter and Space press it, and it is named for what it does in the reader's
 * language ("Show password", then "Hide password"). Every secret field of the console uses this one.
 */
export function PasswordInput({ visible, defaultVisible, onVisibilityChange, ...props }: PasswordInputProps) {
  const { t } = useTranslation();
  const [shown, setShown] = useUncontrolled({
    value: visible,
    defaultValue: defaultVisible,
    finalValue: false,
    onChange: onVisibilityChange,
  });
  return (
    <MantinePasswordInput
      {...props}
      visible={shown}
      onVisibilityChange={setShown}
      visibilityToggleButtonProps={{
        tabIndex: 0,
        'aria-label': t(shown ? 'common.hidePassword' : 'common.showPassword'),
        // the name says the state; a pressed state as well would announce it twice
        'aria-pressed': undefined,
        // Mantine presses it on Space only; a button is pressed with Enter too
        onKeyDown: (event: KeyboardEvent<HTMLButtonElement>) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          setShown(!shown);
        },
      }}
    />
  );
}
