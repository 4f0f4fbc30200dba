import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { getConsoleConfig, useConsoleConfig } from '../lib/console-config';

export const maxDescriptionLength = 160;

export interface PageHeadProps {
  /** Page name; the document title is '{title} · {siteName}', or the site name alone. */
  title?: string;
  /** A complete document title, used as given (the error view builds its own). */
  documentTitle?: string;
  description?: string;
  image?: string;
  /** Social site handle, e.g. '@manifold'. */
  siteHandle?: string;
}

/** The usual title of a page: its name and the product name, or the product name alone. */
export function pageTitle(title?: string, siteName: string = getConsoleConfig().siteName): string {
  return title ? `${title} · ${siteName}` : siteName;
}

export function canonicalUrl(pathname: string): string {
  const base = getConsoleConfig().publicUrl.replace(/\/+$/, '');
  return `${base}${pathname}`;
}

/** Page head of spec §2: title, social title, description, image, canonical URL, site handle. */
export function PageHead({ title, documentTitle, description, image, siteHandle }: PageHeadProps) {
  const { pathname } = useLocation();
  const { siteName } = useConsoleConfig();
  const fullTitle = documentTitle ?? pageTitle(title, siteName);
  const canonical = canonicalUrl(pathname);

  useEffect(() => {
    document.title = fullTitle;
  }, [fullTitle]);

  useEffect(() => {
    if (description && description.length > maxDescriptionLength) {
      console.warn(
        `Page description is ${description.length} characters; keep it within ${maxDescriptionLength}: ${description}`,
      );
    }
  }, [description]);

  return (
    <>
      <meta property="og:title" content={fullTitle} />
      <meta property="og:site_name" content={siteName} />
      <meta property="og:url" content={canonical} />
      <link rel="canonical" href={canonical} />
      {description ? <meta name="description" content={description} /> : null}
      {description ? <meta property="og:description" content={description} /> : null}
      {image ? <meta property="og:image" content={image} /> : null}
      {siteHandle ? <meta name="twitter:site" content={siteHandle} /> : null}
    </>
  );
}
