import type { ComponentChildren } from 'preact';
import { CopyButton } from '../ui';

/**
 * The SDK snippets a developer pastes to send a source's events, with its write key and the stage's data plane
 * filled in. RudderStack's browser and mobile SDKs first read their source's configuration from `configUrl`
 * (`controlPlaneUrl` in the mobile SDKs), which the data plane serves: both URLs point at it.
 */
export interface Snippet {
  id: string;
  title: string;
  /** The copy button's accessible name. */
  copy: string;
  /** What to do first (install the SDK…). */
  hint: ComponentChildren;
  code: string;
}

export type SdkFamily = 'web' | 'android' | 'ios' | 'flutter' | 'react-native' | 'node';

/** A source's type is free text: `JavaScript`, `js`, `web`, `React Native`… name the same SDKs. */
export function sdkFamily(type: string): SdkFamily {
  const t = type.toLowerCase().replace(/[^a-z]/g, '');
  if (['javascript', 'js', 'web', 'browser', 'website', 'webapp'].includes(t)) return 'web';
  if (t === 'android') return 'android';
  if (t === 'ios') return 'ios';
  if (t === 'flutter') return 'flutter';
  if (t === 'reactnative') return 'react-native';
  return 'node';
}

/** The SDK's self-contained build in its npm package: its plugins inside, nothing fetched from RudderStack's CDN. */
export const BUNDLED_BUILD = 'node_modules/@rudderstack/analytics-js/dist/npm/modern/bundled/umd/index.js';

const install = (command: string) => (
  <>
    <code>{command}</code>, then:
  </>
);

const web = (key: string, url: string): Snippet[] => [
  {
    id: 'npm',
    title: 'Web app with a bundler (npm)',
    copy: 'Copy the npm snippet',
    hint: install('npm install @rudderstack/analytics-js'),
    code: `// '/bundled': the SDK's plugins go into your bundle, none is fetched from RudderStack's CDN.
import { RudderAnalytics } from '@rudderstack/analytics-js/bundled';

const analytics = new RudderAnalytics();
analytics.load('${key}', '${url}', {
  configUrl: '${url}',
});
analytics.page();`,
  },
  {
    id: 'script',
    title: 'Web page without a bundler (script tag)',
    copy: 'Copy the script tag snippet',
    hint: (
      <>
        Serve the SDK's bundled build from your site: after <code>npm install @rudderstack/analytics-js</code>, copy <code>{BUNDLED_BUILD}</code> to, say,{' '}
        <code>/js/rudder-analytics.js</code>. Then, in the page:
      </>
    ),
    code: `<script src="/js/rudder-analytics.js"></script>
<script>
  const analytics = new rudderanalytics.RudderAnalytics();
  analytics.load('${key}', '${url}', {
    configUrl: '${url}',
  });
  analytics.page();
  // window.rudderanalytics is now this instance: rudderanalytics.track(…) anywhere in the page.
</script>`,
  },
];

const mobile: Record<'android' | 'ios' | 'flutter' | 'react-native', (key: string, url: string) => Snippet> = {
  android: (key, url) => ({
    id: 'android',
    title: 'Android (Kotlin)',
    copy: 'Copy the Android snippet',
    hint: install("implementation 'com.rudderstack.android.sdk:core:1.+' in the app's build.gradle"),
    code: `val rudderClient = RudderClient.getInstance(
    applicationContext,
    "${key}",
    RudderConfig.Builder()
        .withDataPlaneUrl("${url}")
        .withControlPlaneUrl("${url}")
        .build()
)
rudderClient.track("Signed Up")`,
  }),
  // The iOS SDK 1.x (pod 'Rudder') from Swift: unlike the Swift SDK 2.x, it keeps these URLs whole, path and port.
  ios: (key, url) => ({
    id: 'ios',
    title: 'iOS (Swift)',
    copy: 'Copy the iOS snippet',
    hint: install("pod 'Rudder', '~> 1.17' in the Podfile, import Rudder"),
    code: `let builder: RSConfigBuilder = RSConfigBuilder()
    .withDataPlaneUrl("${url}")
    .withControlPlaneUrl("${url}")
RSClient.getInstance("${key}", config: builder.build())
RSClient.sharedInstance()?.track("Signed Up")`,
  }),
  flutter: (key, url) => ({
    id: 'flutter',
    title: 'Flutter (Dart)',
    copy: 'Copy the Flutter snippet',
    hint: install('flutter pub add rudder_sdk_flutter'),
    code: `import 'package:rudder_sdk_flutter/RudderController.dart';
import 'package:rudder_sdk_flutter_platform_interface/platform.dart';

final builder = RudderConfigBuilder()
  ..withDataPlaneUrl('${url}')
  ..withControlPlaneUrl('${url}');
RudderController.instance.initialize('${key}', config: builder.build());
RudderController.instance.track('Signed Up');`,
  }),
  'react-native': (key, url) => ({
    id: 'react-native',
    title: 'React Native',
    copy: 'Copy the React Native snippet',
    hint: install('npm install @rudderstack/rudder-sdk-react-native && cd ios && pod install'),
    code: `import rudderClient from '@rudderstack/rudder-sdk-react-native';

await rudderClient.setup('${key}', {
  dataPlaneUrl: '${url}',
  controlPlaneUrl: '${url}',
  trackAppLifecycleEvents: true,
});
rudderClient.track('Signed Up');`,
  }),
};

const node = (key: string, url: string): Snippet => ({
  id: 'node',
  title: 'Node.js',
  copy: 'Copy the Node.js snippet',
  hint: install('npm install @rudderstack/rudder-sdk-node'),
  code: `import Analytics from '@rudderstack/rudder-sdk-node';

const client = new Analytics('${key}', { dataPlaneUrl: '${url}' });
client.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } });
await client.flush();`,
});

/** The snippets for a source of this type (the data plane's URL without a trailing slash). */
export function snippetsFor(type: string, writeKey: string, dataPlaneUrl: string): Snippet[] {
  const url = dataPlaneUrl.replace(/\/+$/, '');
  const family = sdkFamily(type);
  if (family === 'web') return web(writeKey, url);
  if (family === 'node') return [node(writeKey, url)];
  return [mobile[family](writeKey, url)];
}

export function Snippets({ snippets }: { snippets: Snippet[] }) {
  return (
    <>
      {snippets.map((s) => (
        <div class="snippet" data-testid={`snippet-${s.id}`}>
          <div class="row">
            <h3>{s.title}</h3>
            <CopyButton text={s.code} label={s.copy} />
          </div>
          <p class="hint">{s.hint}</p>
          <pre class="code" tabIndex={0}>
            {s.code}
          </pre>
        </div>
      ))}
    </>
  );
}
