import { networkPages } from '../../../app/settings-pages';
import { TabbedArea } from '../../../components/tabbed-area';

/** The peer network: Manage, Trace and Protect instances, one page each. */
export function NetworkLayout() {
  return <TabbedArea basePath="/network" titleKey="network.title" pagesLabelKey="network.pagesLabel" pages={networkPages} />;
}
