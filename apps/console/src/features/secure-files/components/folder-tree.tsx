import { NavLink, Text } from '@mantine/core';
import { IconFolder, IconFolderOpen } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSecureRepoList } from '../api/get-secure-repo';

/** How many subfolders a tree level shows; the folder's own screen pages through the rest. */
const treePageSize = 100;

interface FolderTreeProps {
  /** The folder shown beside the tree, highlighted; its ancestors start opened. */
  currentNodeId: string | undefined;
  openedIds: readonly string[];
}

/** The folders the caller may see, as a tree: each level is fetched when it opens. */
export function FolderTree({ currentNodeId, openedIds }: FolderTreeProps) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('secureFiles.tree')}>
      <NavLink
        component={Link}
        to="/secure-files"
        label={t('secureFiles.topLevel')}
        active={currentNodeId === undefined}
        leftSection={<IconFolderOpen size={16} aria-hidden />}
      />
      <FolderLevel parentId={undefined} currentNodeId={currentNodeId} openedIds={openedIds} />
    </nav>
  );
}

function FolderLevel({ parentId, currentNodeId, openedIds }: FolderTreeProps & { parentId: string | undefined }) {
  const { t } = useTranslation();
  const list = useSecureRepoList({ ...(parentId ? { nodeId: parentId } : {}), pageNum: 1, numberOfItems: treePageSize });
  const folders = (list.data?.nodes ?? []).filter((node) => node.nodeType === 'folder');
  const more = (list.data?.totalNumOfItems ?? 0) > (list.data?.nodes.length ?? 0);
  return (
    <>
      {folders.map((folder) => (
        <FolderItem
          key={folder.nodeId}
          nodeId={folder.nodeId}
          name={folder.folderName}
          currentNodeId={currentNodeId}
          openedIds={openedIds}
        />
      ))}
      {more ? (
        <Text size="xs" c="dimmed" pl="md">
          {t('secureFiles.treeMore', { count: treePageSize })}
        </Text>
      ) : null}
    </>
  );
}

function FolderItem({ nodeId, name, currentNodeId, openedIds }: FolderTreeProps & { nodeId: string; name: string }) {
  const [opened, setOpened] = useState(openedIds.includes(nodeId) || currentNodeId === nodeId);
  return (
    <NavLink
      component={Link}
      to={`/secure-files/${nodeId}`}
      label={name}
      active={currentNodeId === nodeId}
      opened={opened}
      onChange={setOpened}
      leftSection={<IconFolder size={16} aria-hidden />}
      childrenOffset={16}
    >
      {opened ? <FolderLevel parentId={nodeId} currentNodeId={currentNodeId} openedIds={openedIds} /> : null}
    </NavLink>
  );
}
