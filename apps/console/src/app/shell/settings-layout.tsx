import { TabbedArea } from '../../components/tabbed-area';
import { settingsPages } from '../settings-pages';

/** The settings area: its pages as a navigation row, the chosen page below. */
export function SettingsLayout() {
  return <TabbedArea basePath="/settings" titleKey="settings.title" pagesLabelKey="settings.pagesLabel" pages={settingsPages} />;
}
