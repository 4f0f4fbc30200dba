// A step of the page's start (src/boot.ts): the router, query, i18n and component libraries and
// the theme built from them, evaluated in a task of their own before the app's chunk (which
// imports the same modules; the build places them in a chunk both share, evaluated once).
export { createBrowserRouter } from 'react-router';
export { QueryClient } from '@tanstack/react-query';
export { default as i18next } from 'i18next';
export { initReactI18next } from 'react-i18next';
export { MantineProvider } from '@mantine/core';
export { mantineTheme } from '../app/theme';
