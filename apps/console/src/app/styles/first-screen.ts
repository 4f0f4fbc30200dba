// Mantine's stylesheet for what can show before sign-in — the login forms, the SSO return, the
// error view, the page loader and alerts — in the order of @mantine/core/styles.css (dependencies
// first). The entry (boot.ts) links it, so it blocks the first paint; the rest of Mantine's
// components come with the signed-in layout (signed-in.ts). A component added to those screens
// adds its file here: e2e/auth.e2e.test.ts fails on a Mantine class without a rule.
import '@mantine/core/styles/baseline.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/UnstyledButton.css';
import '@mantine/core/styles/Paper.css';
import '@mantine/core/styles/Loader.css';
import '@mantine/core/styles/ActionIcon.css';
import '@mantine/core/styles/CloseButton.css';
import '@mantine/core/styles/Input.css';
import '@mantine/core/styles/Alert.css';
import '@mantine/core/styles/Text.css';
import '@mantine/core/styles/Anchor.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/Center.css';
import '@mantine/core/styles/Divider.css';
import '@mantine/core/styles/Notification.css';
import '@mantine/core/styles/PasswordInput.css';
import '@mantine/core/styles/Stack.css';
import '@mantine/core/styles/Title.css';
