import { Title } from '@mantine/core';
import { createContext, useContext, type ReactNode } from 'react';

/** Whether the screen is a page of a tabbed area (`TabbedArea`), below the area's own title. */
const InArea = createContext(false);

/** Marks the screens inside as pages of an area: their titles are headings under the area's. */
export function AreaPages({ children }: { children: ReactNode }) {
  return <InArea.Provider value={true}>{children}</InArea.Provider>;
}

/**
 * A screen's title: the page's one `h1`, or, on a page of a tabbed area (Settings, Network), an
 * `h2` a size smaller than the area's `h1` and larger than the page's sections (`h4` size).
 */
export function PageTitle({ children }: { children: ReactNode }) {
  const inArea = useContext(InArea);
  return inArea ? (
    <Title order={2} size="h3">
      {children}
    </Title>
  ) : (
    <Title order={1}>{children}</Title>
  );
}

/** The heading level of a `Section`: 2 under a page's `h1`, 3 under a titled page of an area. */
const SectionOrder = createContext<2 | 3>(2);

/**
 * The body of a screen that shows its own title (`PageTitle`) above sections: on a page of an area,
 * where that title is an `h2`, its sections are `h3`; elsewhere `h2` under the `h1`.
 */
export function TitledPageBody({ children }: { children: ReactNode }) {
  const inArea = useContext(InArea);
  return <SectionOrder.Provider value={inArea ? 3 : 2}>{children}</SectionOrder.Provider>;
}

/** The heading level a `Section` takes where it is. */
export function useSectionOrder(): 2 | 3 {
  return useContext(SectionOrder);
}
