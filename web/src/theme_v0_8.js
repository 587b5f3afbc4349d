// The theme the v0.8 renderer requires (it draws nothing without one). v0.8 themes name CSS
// classes per element; these components live in shadow roots, so the page's own look comes
// from inline styles (`additionalStyles`), with every class map empty.

const none = {};
const field = { container: none, element: none, label: none };

/** @type {import('@a2ui/web_core/types/types').Theme} */
export const theme = {
  components: {
    AudioPlayer: none,
    Button: none,
    Card: none,
    Column: none,
    CheckBox: field,
    DateTimeInput: field,
    Divider: none,
    Image: {
      all: none,
      icon: none,
      avatar: none,
      smallFeature: none,
      mediumFeature: none,
      largeFeature: none,
      header: none,
    },
    Icon: none,
    List: none,
    Modal: { backdrop: none, element: none },
    MultipleChoice: field,
    Row: none,
    Slider: field,
    Tabs: { container: none, element: none, controls: { all: none, selected: none } },
    Text: { all: none, h1: none, h2: none, h3: none, h4: none, h5: none, caption: none, body: none },
    TextField: field,
    Video: none,
  },
  elements: {
    a: none,
    audio: none,
    body: none,
    button: none,
    h1: none,
    h2: none,
    h3: none,
    h4: none,
    h5: none,
    iframe: none,
    input: none,
    p: none,
    pre: none,
    textarea: none,
    video: none,
  },
  markdown: { p: [], h1: [], h2: [], h3: [], h4: [], h5: [], ul: [], ol: [], li: [], a: [], strong: [], em: [] },
  additionalStyles: {
    Card: {
      border: '1px solid #d0d7de',
      'border-radius': '12px',
      padding: '12px 16px',
      margin: '6px 0',
      background: '#fff',
    },
    Button: {
      border: 'none',
      'border-radius': '20px',
      padding: '8px 18px',
      background: '#0b57d0',
      color: '#fff',
      cursor: 'pointer',
      font: 'inherit',
    },
    // By usage hint; the renderer wants all eight keys to read them that way.
    Text: {
      h1: { 'font-size': '1.75rem', 'font-weight': 'bold' },
      h2: { 'font-size': '1.5rem', 'font-weight': 'bold' },
      h3: { 'font-size': '1.25rem', 'font-weight': 'bold' },
      h4: { 'font-size': '1.05rem', 'font-weight': 'bold' },
      h5: { 'font-size': '1rem', 'font-weight': 'bold' },
      h6: { 'font-size': '.9rem', 'font-weight': 'bold' },
      caption: { 'font-size': '.8rem', color: '#59636e' },
      body: {},
    },
    Column: { gap: '4px' },
    Row: { gap: '12px', 'align-items': 'center', 'justify-content': 'space-between' },
    TextField: {
      padding: '6px 8px',
      border: '1px solid #8c959f',
      'border-radius': '6px',
      font: 'inherit',
    },
  },
};
