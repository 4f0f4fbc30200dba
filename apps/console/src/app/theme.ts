import { Badge, createTheme, type CSSVariablesResolver, type MantineColorsTuple } from '@mantine/core';

/** Green accents dark enough for white text to stay readable (WCAG AA). */
const manifoldGreen: MantineColorsTuple = [
  '#e9f7ec',
  '#d2eed8',
  '#a6dcb2',
  '#76c98a',
  '#4fb968',
  '#37ad52',
  '#2b8a3e',
  '#23733a',
  '#1d6231',
  '#154d25',
];

export const mantineTheme = createTheme({
  primaryColor: 'green',
  primaryShade: { light: 7, dark: 8 },
  colors: { green: manifoldGreen },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans SC", "PingFang SC", sans-serif',
  defaultRadius: 'md',
  components: {
    // a badge is a short word read whole: Mantine's badge may be narrower than its label (its
    // grid track shrinks to nothing, and a table column squeezes it), cutting "Verified" to "VERIFI…"
    Badge: Badge.extend({ styles: { root: { minWidth: 'max-content' } } }),
  },
});

/**
 * Dimmed and error text darker than Mantine's defaults: 4.5:1 contrast on light backgrounds. Text
 * colours that keep 4.5:1 in both themes, on the page and on light badges and alerts of their
 * colour: `c="var(--manifold-link)"` for links, `--manifold-text` for strong text (badges of no
 * particular colour), `--manifold-success`, `--manifold-danger`, `--manifold-warning` and
 * `--manifold-info` for the states. A fixed shade (`c="green.9"`) is readable in one theme only.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--manifold-link': 'var(--mantine-color-green-9)',
    '--manifold-text': 'var(--mantine-color-gray-9)',
    '--manifold-danger': 'var(--mantine-color-red-9)',
    '--manifold-success': 'var(--mantine-color-green-9)',
    // orange-9 gives 4.3:1 on white only: a darker orange, 5.5:1 on a light orange or yellow badge
    '--manifold-warning': '#a63c06',
    '--manifold-info': 'var(--mantine-color-blue-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    // a disabled button's fill: Mantine's (dark-6) is the cards' own colour, so on a card a
    // disabled button showed as bare text
    '--mantine-color-disabled': 'var(--mantine-color-dark-5)',
    '--manifold-link': 'var(--mantine-color-green-2)',
    '--manifold-text': 'var(--mantine-color-gray-0)',
    '--manifold-danger': 'var(--mantine-color-red-3)',
    '--manifold-success': 'var(--mantine-color-green-2)',
    '--manifold-warning': 'var(--mantine-color-orange-3)',
    '--manifold-info': 'var(--mantine-color-blue-3)',
  },
});

/** The state each Mantine colour of a badge or alert stands for, by its theme-aware text colour. */
const stateTextColors: Readonly<Record<string, string>> = {
  green: 'var(--manifold-success)',
  teal: 'var(--manifold-success)',
  red: 'var(--manifold-danger)',
  orange: 'var(--manifold-warning)',
  yellow: 'var(--manifold-warning)',
  blue: 'var(--manifold-info)',
};

/**
 * The text colour for a light badge or alert of the Mantine colour `color` (`color="green"`): its
 * state's theme-aware variable, `--manifold-text` for any other colour. Readable in both themes.
 */
export function stateText(color: string): string {
  return stateTextColors[color] ?? 'var(--manifold-text)';
}
